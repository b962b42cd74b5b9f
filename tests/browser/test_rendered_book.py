"""Browser test of the built book: every HTML page of ``_build/html`` opened in headless Chromium.

For each page (pytest id = its path inside the site) the test fails, listing every problem of the
page in one message, on

1. raw LaTeX left unrendered after MathJax ran (``\\(``, ``\\)``, ``\\[``, ``\\]``, ``$$``,
   ``\\begin{``, or ``$`` followed by a command, a brace or a one-letter symbol) in a visible text
   node outside ``pre``/``code``/``script``/``style``/``textarea``/``mjx-container``; every element
   of class ``math`` must hold an ``mjx-container`` (MathJax really ran) and no formula may be a
   MathJax TeX error;
2. a broken image: every ``<img src>`` must be served by the local server with status 200 and a
   non-empty body (``data:`` URIs must decode to something non-empty);
3. a broken internal link: every ``<a href>`` into the site must answer 200, and its ``#fragment``
   must be an ``id`` (or ``name``) on the target page;
4. a notebook error in the output: myst-nb 1.x renders an error output as
   ``div.output.traceback`` (stderr as ``div.output.stderr``, which is allowed unless it holds an
   exception line such as ``ValueError: ...`` or a logging ``ERROR``), and any
   ``Traceback (most recent call last)`` or papermill ``An Exception was encountered`` text fails.

5. a stderr or warning output block (warnings are notices of the run, on the build status page);
6. an absolute path of the build machine (home or temp folders, ``ipykernel_`` files,
   ``site-packages``, a virtualenv) anywhere in the page's HTML;
7. a number in prose (outside code and math) with more than 4 significant digits.

Other tests: the layout at a desk's and a phone's window, 1280 x 900 and 390 x 844 px (a script measures
the page in a window of that size): no table wider than its
column, no page wider than the window, no formula cut off (it must fit or scroll inside its own box),
no table cell narrower than one of its words, no code block scrolling sideways. Two checks of the
reader text (issue 35): no interval whose ends equal its value ("3 [3, 3]") and no code identifier (a
snake_case name) outside code, math and the appendices of parameters and code. The landing page names every catalogue row with a status, and
screenshots of the landing page, the scorecard, the notes and every chapter at both widths go to
``_build/screenshots/``.

The pages are served from a local ``http.server`` on 127.0.0.1 started by the test, and opened in one
headless Chromium driven over the DevTools protocol (``tests/browser/chromium.py``): each page is loaded
once, a few tabs at a time; in that load the test reads the DOM after the scripts and MathJax ran, then
measures the layout and takes the screenshots in each reader's window (the tab's window resized).

Environment: ``BOOK_HTML`` overrides the site folder (default ``_build/html`` in the repository
root); ``CHROMIUM`` overrides the browser binary; ``BOOK_BROWSER_JOBS`` the number of pages
loaded at once (default 3). Chromium is installed with apt-get (Debian package
``chromium``) when it is missing and the test runs as root.
"""

from __future__ import annotations

import base64
import binascii
import functools
import html
import html.parser
import http.server
import json
import os
import re
import shutil
import socketserver
import subprocess
import threading
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Comment, Declaration, Doctype, NavigableString, ProcessingInstruction, Tag

from lib.util.numbers import number_from_text
from tests.browser.chromium import Chromium

REPO_ROOT = Path(__file__).resolve().parents[2]
BOOK_HTML = Path(os.environ.get("BOOK_HTML") or REPO_ROOT / "_build" / "html")
if not BOOK_HTML.is_absolute():
    BOOK_HTML = REPO_ROOT / BOOK_HTML
SCREENSHOT_DIR = BOOK_HTML.parent / "screenshots"

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--mute-audio",
]
CHROMIUM_TIMEOUT_S = 120
JOBS = max(1, int(os.environ.get("BOOK_BROWSER_JOBS", "3")))

MISSING = "<book not built>"

pytestmark = pytest.mark.browser


# --------------------------------------------------------------------------------------------
# pages
# --------------------------------------------------------------------------------------------


def _pages() -> list[str]:
    """Every HTML page of the site, as a POSIX path relative to its root.

    Folders starting with ``_`` (``_static``, ``_sources``, ``_images``, ...) hold assets and
    theme templates, not pages.
    """
    if not BOOK_HTML.is_dir():
        return [MISSING]
    pages = []
    for path in sorted(BOOK_HTML.rglob("*.html")):
        rel = path.relative_to(BOOK_HTML)
        if any(part.startswith((".", "_")) for part in rel.parts[:-1]):
            continue
        pages.append(rel.as_posix())
    return pages or [MISSING]


def _fail_if_not_built() -> None:
    if not BOOK_HTML.is_dir():
        pytest.fail(
            f"the built book {BOOK_HTML} does not exist: run `make book` first "
            "(or point BOOK_HTML at a built Jupyter Book site)",
            pytrace=False,
        )
    if not any(BOOK_HTML.rglob("*.html")):
        pytest.fail(f"no HTML page under {BOOK_HTML}: run `make book` first", pytrace=False)


PAGES = _pages()


def _toc_chapters() -> list[str]:
    """The chapter ids of the table of contents (book/chapters/ID)."""
    toc = (REPO_ROOT / "_toc.yml").read_text()
    return re.findall(r"file: book/chapters/([a-z0-9_]+)", toc)


LANDING = "book/intro.html"  # where the site's index.html leads
SCREENSHOT_PAGES = [
    LANDING,
    "book/generated/scorecard.html",
    "book/generated/notes.html",
    *(f"book/chapters/{c}.html" for c in _toc_chapters()),
]
# tests without a page parameter that read a rendering: of the landing page
_LANDING_FOR = {"test_screenshot_index": LANDING}


def _screenshots(page: str, width: int) -> list[tuple[Path, tuple[int, int]]]:
    """The screenshots taken of `page` when it is loaded at `width`: (file, window size) each. The first
    screens of the pages people look at (a window three screens tall), and the landing page once more at
    1280 x 2000 px as index.png."""
    shots = []
    if page in SCREENSHOT_PAGES:
        shots.append((SCREENSHOT_DIR / f"{Path(page).stem}-{width}.png", (width, 3 * WIDTHS[width])))
    if page == LANDING and width == DESK:
        shots.append((SCREENSHOT_DIR / "index.png", (DESK, 2000)))
    return shots


# --------------------------------------------------------------------------------------------
# Chromium
# --------------------------------------------------------------------------------------------


def _find_chromium() -> str | None:
    env = os.environ.get("CHROMIUM")
    if env:
        return env
    for candidate in ("/usr/bin/chromium", "chromium", "chromium-browser"):
        found = shutil.which(candidate)
        if found:
            return found
    return None


@pytest.fixture(scope="session")
def chromium() -> str:
    found = _find_chromium()
    if found:
        return found
    if os.name == "posix" and os.geteuid() == 0 and shutil.which("apt-get"):
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        for cmd in (["apt-get", "update"], ["apt-get", "install", "-y", "chromium"]):
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1200)
            if proc.returncode != 0:
                pytest.fail(
                    f"`{' '.join(cmd)}` failed (rc {proc.returncode}) while installing "
                    f"Chromium:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}",
                    pytrace=False,
                )
        found = _find_chromium()
        if found:
            return found
    pytest.fail(
        "Chromium is missing: install the Debian package `chromium` "
        "(`apt-get update && apt-get install -y chromium`) or set CHROMIUM",
        pytrace=False,
    )


# --------------------------------------------------------------------------------------------
# the layout probe
# --------------------------------------------------------------------------------------------


# The reader's two windows: a desk (1280 x 900) and a phone (390 x 844).
DESK = 1280
WIDTHS = {DESK: 900, 390: 844}

# A script run in the page, in a reader's window, once the page loaded and MathJax typeset it; its value is
# every layout problem it finds (JSON):
# - "table": a table wider than its container or than the article;
# - "page": the page wider than the window (the reader would scroll the whole page sideways);
# - "math": a formula cut off: wider than a box that clips it, or than the window, instead of
#   scrolling inside its own box (its container, its div.math, or the table it is in);
# - "inline math": a formula in a line of text wider than its box, so that the reader sees it cut and must
#   scroll it (a display formula may scroll in its own box; a formula in running text cannot wrap);
# - "cell": a table cell narrower than one of its words (a column that wraps a word letter by letter);
# - "code": a code block or output that scrolls sideways instead of wrapping;
# - "cards", on the phone: a table whose rows fold their details (claims, the landing page's rows, the build
#   status) or a prose table of the notes that scrolls sideways instead of reading as one card per row (book.css);
# - "header", at the desk's width: the theme's header bar shown above the page (it held only a second search
#   field, pydata-sphinx-theme 0.17; _config.yml empties it);
# - "shape": a figure drawn out of its proportions (its width shrunk to the column, its height not);
# - "figure", at the desk's width: a figure shown at fewer than 96 CSS px per inch of the figure, where its
#   smallest text (8 pt: tests/unit/test_figure_text.py) reads under 8 pt on the screen; the PNGs hold 220
#   pixels per inch (the book's 110 dpi, doubled for high-density screens: lib/util/plotting.py).
LAYOUT_PROBE = """(function () {
    var win = window, doc = document, out = [];
    var width = win.innerWidth;
    var article = doc.querySelector("article") || doc.querySelector("main") || doc.body;
    var right = article.getBoundingClientRect().right;
    var text = function (el) { return (el.textContent || "").trim().replace(/\\s+/g, " ").slice(0, 50); };
    doc.querySelectorAll("article table, main table").forEach(function (table, i) {
      var box = table.getBoundingClientRect(), parent = table.parentElement;
      if (box.width > parent.clientWidth + 1 || box.right > right + 1) {
        var first = table.querySelector("th, td");
        out.push({problem: "table", table: i, width: Math.round(box.width),
                  room: Math.min(parent.clientWidth, Math.round(right - box.left)), starts: first ? text(first) : ""});
      }
    });
    var page = Math.max(doc.documentElement.scrollWidth, doc.body.scrollWidth);
    if (page > width + 1) {
      var causes = [];  // elements past the window's edge that no box of theirs clips or scrolls
      doc.querySelectorAll("body *").forEach(function (el) {
        if (causes.length >= 3 || el.getBoundingClientRect().right <= width + 1) { return; }
        for (var a = el.parentElement; a && a !== doc.body; a = a.parentElement) {
          if (win.getComputedStyle(a).overflowX !== "visible") { return; }
        }
        causes.push(el.tagName.toLowerCase() + "." + String(el.className.baseVal === undefined ? el.className : el.className.baseVal) + ": " + text(el));
      });
      out.push({problem: "page", width: page, window: width, past_the_edge: causes});
    }
    var ownBox = function (el, container) {
      return el === container || (el.classList && el.classList.contains("math")) || el.tagName === "TABLE" ||
             (el.classList && el.classList.contains("pst-scrollable-table-container"));
    };
    doc.querySelectorAll("article mjx-container").forEach(function (container) {
      var svg = container.querySelector("svg");
      if (!svg) { return; }
      var r = svg.getBoundingClientRect();
      if (r.width === 0) { return; }
      for (var el = container; el && el !== doc.body; el = el.parentElement) {
        var overflow = win.getComputedStyle(el).overflowX;
        if (overflow === "visible") { continue; }
        if ((overflow === "auto" || overflow === "scroll") && ownBox(el, container)) { return; }
        var box = el.getBoundingClientRect();
        if (r.right > box.right + 1 || r.left < box.left - 1) {
          out.push({problem: "math", width: Math.round(r.width), room: Math.round(box.width),
                    clipped_by: el.tagName.toLowerCase() + "." + el.className, near: text(container.parentElement)});
          return;
        }
      }
      if (r.right > width + 1) {
        out.push({problem: "math", width: Math.round(r.width), room: width, clipped_by: "the window",
                  near: text(container.parentElement)});
      }
    });
    doc.querySelectorAll("article span.math mjx-container:not([display='true'])").forEach(function (container) {
      var svg = container.querySelector("svg"), box = container.closest("span.math").getBoundingClientRect();
      if (!svg || box.width === 0) { return; }
      var r = svg.getBoundingClientRect();
      if (r.right > box.right + 4 || r.left < box.left - 4) {
        out.push({problem: "inline math", width: Math.round(r.width), room: Math.round(box.width),
                  near: text(container.closest("p, li, td, dd") || container.parentElement)});
      }
    });
    var canvas = doc.createElement("canvas").getContext("2d");
    doc.querySelectorAll("article td, article th, main td, main th").forEach(function (cell) {
      var style = win.getComputedStyle(cell);
      var room = cell.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      if (cell.clientWidth === 0) { return; }
      var walker = doc.createTreeWalker(cell, NodeFilter.SHOW_TEXT), node;
      while ((node = walker.nextNode())) {
        var parent = node.parentElement, folded = parent.closest("details");
        if (parent.closest("code, pre, mjx-container, .pre")) { continue; }
        if (folded && !folded.open && !parent.closest("summary")) { continue; }  // not shown
        canvas.font = win.getComputedStyle(parent).font;
        // a line may break at a space or after a hyphen
        var words = node.textContent.split(/[\\s\u2010-]+/).filter(function (w) { return /^[A-Za-z][A-Za-z'-]{2,19}[.,;:]?$/.test(w); });
        for (var k = 0; k < words.length; k++) {
          var need = canvas.measureText(words[k]).width;
          if (need > room + 2) {
            out.push({problem: "cell", word: words[k], word_px: Math.round(need), cell_px: Math.round(room), row: text(cell.parentElement)});
            return;
          }
        }
      }
    });
    doc.querySelectorAll("article pre, main pre").forEach(function (pre) {
      if (pre.clientWidth > 0 && pre.scrollWidth > pre.clientWidth + 1) {
        out.push({problem: "code", width: pre.scrollWidth, room: pre.clientWidth, starts: text(pre)});
      }
    });
    if (width < 640) {
      doc.querySelectorAll("article table, main table").forEach(function (table, i) {
        var cards = table.querySelector("td details") || table.matches(".book-switches, .book-cards");
        if (cards && table.scrollWidth > table.clientWidth + 1) {
          out.push({problem: "cards", table: i, width: table.scrollWidth, room: table.clientWidth,
                    starts: text(table.querySelector("td") || table)});
        }
      });
    }
    doc.querySelectorAll("article img, main img").forEach(function (img) {
      var box = img.getBoundingClientRect();
      if (!img.naturalWidth || !img.naturalHeight || !box.width || !box.height) { return; }
      var shape = (box.width / box.height) / (img.naturalWidth / img.naturalHeight);
      if (Math.abs(shape - 1) > 0.02) {
        out.push({problem: "shape", pixels: [img.naturalWidth, img.naturalHeight],
                  shown: [Math.round(box.width), Math.round(box.height)], src: (img.getAttribute("src") || "").slice(-60)});
      }
    });
    if (width >= 1000) {
      var header = doc.querySelector("header.bd-header");
      if (header && header.getBoundingClientRect().height > 0) {
        out.push({problem: "header", height: Math.round(header.getBoundingClientRect().height), holds: text(header)});
      }
      doc.querySelectorAll("article img, main img").forEach(function (img) {
        if (!img.naturalWidth || img.naturalWidth < 300) { return; }  // icons and badges
        var shown = img.getBoundingClientRect().width;
        if (shown < 96 * img.naturalWidth / 220 - 1) {
          out.push({problem: "figure", pixels: img.naturalWidth, shown: Math.round(shown),
                    src: (img.getAttribute("src") || "").slice(-60)});
        }
      });
    }
    return JSON.stringify(out);
})()"""


# --------------------------------------------------------------------------------------------
# local HTTP server
# --------------------------------------------------------------------------------------------


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - signature of the base class
        pass


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


@pytest.fixture(scope="session")
def site():
    """The book served on 127.0.0.1 at a free port; yields the base URL (ending in '/')."""
    _fail_if_not_built()
    handler = functools.partial(_QuietHandler, directory=str(BOOK_HTML))
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="book-http", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


class _Fetcher:
    """GETs URLs of the local server once each (thread-safe cache)."""

    def __init__(self):
        self._cache: dict[str, tuple[int | None, bytes, str]] = {}
        self._ids: dict[str, set[str]] = {}
        self._lock = threading.Lock()

    def get(self, url: str) -> tuple[int | None, bytes, str]:
        """(status or None, body, error text) for ``url`` (no fragment)."""
        with self._lock:
            if url in self._cache:
                return self._cache[url]
        try:
            with urllib.request.urlopen(url, timeout=30) as resp:
                result = (resp.status, resp.read(), "")
        except urllib.error.HTTPError as exc:
            result = (exc.code, b"", str(exc))
        except (urllib.error.URLError, OSError) as exc:
            result = (None, b"", str(exc))
        with self._lock:
            self._cache[url] = result
        return result

    def ids(self, url: str) -> set[str]:
        """The ids (and anchor names) of the HTML page at ``url``."""
        with self._lock:
            if url in self._ids:
                return self._ids[url]
        _, body, _ = self.get(url)
        collector = _IdCollector()
        collector.feed(body.decode("utf-8", "replace"))
        collector.close()
        ids = collector.ids
        with self._lock:
            self._ids[url] = ids
        return ids


class _IdCollector(html.parser.HTMLParser):
    """The ids (and anchor names) of an HTML text, as `_ids_of` finds them in its parsed tree (the same tokenizer,
    without building the tree: a linked page is read only for these)."""

    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is not None and (name == "id" or (name == "name" and tag == "a")):
                self.ids.add(value)


def _ids_of(soup: BeautifulSoup) -> set[str]:
    ids = {tag["id"] for tag in soup.find_all(id=True)}
    ids |= {tag["name"] for tag in soup.find_all("a", attrs={"name": True})}
    return ids


@pytest.fixture(scope="session")
def fetcher() -> _Fetcher:
    return _Fetcher()


@pytest.fixture(scope="session")
def browser(chromium):
    """One headless Chromium for the session."""
    with Chromium(chromium, CHROMIUM_FLAGS, timeout=CHROMIUM_TIMEOUT_S) as running:
        yield running


@dataclass(frozen=True)
class Rendering:
    """What one load of a page gave: its DOM after the scripts ran, in the desk's window, and its layout
    problems in each reader's window (the same load, the window resized); its screenshots were written."""

    dom: str
    layout: dict[int, list[dict]]


def _render(browser: Chromium, site: str, page: str) -> Rendering:
    """Load `page` once in the desk's window, read it, then resize the window to each other width (the
    typeset formulas and the loaded figures stay; the page lays itself out again, as on a rotated tablet)."""
    layout = {}
    with browser.tab(DESK, WIDTHS[DESK]) as tab:
        tab.load(urllib.parse.urljoin(site, page))
        dom = tab.evaluate("document.documentElement.outerHTML")
        for width in sorted(WIDTHS, reverse=True):
            tab.resize(width, WIDTHS[width])
            layout[width] = json.loads(tab.evaluate(LAYOUT_PROBE))
            for png, size in _screenshots(page, width):
                tab.screenshot(png, *size)
    return Rendering(dom, layout)


@pytest.fixture(scope="session")
def renderings(request, site, browser):
    """page -> Future of its `Rendering`: every page the session's tests read, each loaded once, ``JOBS``
    tabs at a time, in the order the tests run."""
    wanted = []
    for item in request.session.items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        page = params.get("page") or _LANDING_FOR.get(getattr(item, "originalname", None))
        if page and page != MISSING and page not in wanted and not _is_redirect(page):
            wanted.append(page)
    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    pool = ThreadPoolExecutor(max_workers=JOBS, thread_name_prefix="chromium")
    futures: dict[str, Future] = {page: pool.submit(_render, browser, site, page) for page in wanted}
    try:
        yield futures
    finally:
        for future in futures.values():
            future.cancel()
        pool.shutdown(wait=True)


def _rendered(request, page: str) -> Rendering:
    return request.getfixturevalue("renderings")[page].result()


# --------------------------------------------------------------------------------------------
# checks
# --------------------------------------------------------------------------------------------

# Text inside these elements is code, not prose, or not displayed.
SKIP_TEXT_IN = {
    "pre", "code", "kbd", "samp", "script", "style", "textarea", "noscript", "template",
    "head", "title", "mjx-container", "mjx-assistive-mml", "svg", "math",
}  # fmt: skip

RAW_LATEX = re.compile(
    r"""
      \\[()\[\]]                      # \( \) \[ \]  MathJax delimiters (Sphinx writes these)
    | \$\$                            # display dollars
    | \\begin\{                       # an environment: \begin{align}
    | \$\s*\\[A-Za-z]+               # $\alpha
    | \$\{                            # ${
    | \$[A-Za-z](?![A-Za-z])          # $x, $x^2, $f(x)$ -- but not $USD
    | \$[0-9]+[\^_{]                  # $2^n
    """,
    re.VERBOSE,
)

EXCEPTION_LINE = re.compile(
    r"^\s*(?:[A-Za-z_][\w.]*\.)?(?:[A-Z]\w*)?(?:Error|Exception|Interrupt)\b(?::|\s*$)"
    r"|^\s*ERROR\b",
    re.MULTILINE,
)
TRACEBACK_TEXTS = ("Traceback (most recent call last)", "An Exception was encountered at")


def _snippet(text: str, start: int, end: int, width: int = 50) -> str:
    left = max(0, start - width)
    right = min(len(text), end + width)
    snippet = " ".join(text[left:right].split())
    return ("..." if left else "") + snippet + ("..." if right < len(text) else "")


def _where(tag) -> str:
    """A short CSS-like path to ``tag``, e.g. ``section#intro > p``."""
    parts = []
    while tag is not None and tag.name not in (None, "[document]", "html", "body"):
        label = tag.name
        if tag.get("id"):
            label += f"#{tag['id']}"
            parts.append(label)
            break
        classes = tag.get("class") or []
        if classes:
            label += "." + ".".join(classes[:2])
        parts.append(label)
        tag = tag.parent
    return " > ".join(reversed(parts[:4]))


def _visible_text_nodes(soup: BeautifulSoup):
    for node in soup.find_all(string=True):
        if isinstance(node, (Comment, Declaration, Doctype, ProcessingInstruction)):
            continue
        if not isinstance(node, NavigableString) or not node.strip():
            continue
        hidden = False
        for parent in node.parents:
            if parent.name in SKIP_TEXT_IN or parent.has_attr("hidden"):
                hidden = True
                break
        if not hidden:
            yield node


def _in_math_element(node) -> bool:
    return any("math" in (parent.get("class") or []) for parent in node.parents)


def _in_signature(node) -> bool:
    """Inside a function's signature on the page "Code behind the results" (autodoc): code, not prose."""
    return any("sig" in (parent.get("class") or []) for parent in node.parents)


# Inline math whose TeX is "5 and " comes from prose like "costs $5 and $10": dollarmath (with
# Jupyter Book's dmath_allow_space) turned two currency signs into a formula. Escape them: \$.
CURRENCY_AS_MATH = re.compile(r"^\d[\d.,]*\s.*\s$", re.DOTALL)


# An inline formula as Sphinx writes it into a page (its TeX HTML-escaped), before MathJax typesets it.
SPHINX_INLINE_MATH = re.compile(r'<span class="math notranslate nohighlight">\\\((.*?)\\\)</span>', re.DOTALL)
ANCHOR = re.compile(r'\bid="([^"]+)"')


def check_currency(static_html: str) -> list[str]:
    """Inline formulas in the page's HTML as written by Sphinx that look like prose money, each with the id of
    the element nearest before it (read from the text: building a tree of the page was a third of this test's
    parsing)."""
    problems = []
    for match in SPHINX_INLINE_MATH.finditer(static_html):
        tex = html.unescape(match.group(1))
        if CURRENCY_AS_MATH.match(tex):
            anchors = ANCHOR.findall(static_html, 0, match.start())
            where = f" after #{anchors[-1]}" if anchors else ""
            problems.append(f'dollar signs read as math "${tex}$"{where}: escape a currency $ as \\$')
    return problems


def check_math(soup: BeautifulSoup, limit: int = 10) -> list[str]:
    problems = []
    raw = []
    for node in _visible_text_nodes(soup):
        if _in_math_element(node):  # reported below as "math not typeset"
            continue
        text = str(node)
        match = RAW_LATEX.search(text)
        if match:
            raw.append(
                f'raw LaTeX `{match.group(0)}` in {_where(node.parent)}: "{_snippet(text, match.start(), match.end())}"'
            )
    problems += raw[:limit]
    if len(raw) > limit:
        problems.append(f"... and {len(raw) - limit} more text nodes with raw LaTeX")
    math = [tag for tag in soup.find_all(class_="math") if tag.name not in SKIP_TEXT_IN]
    unrendered = [tag for tag in math if tag.find("mjx-container") is None]
    if math and not soup.find("mjx-container"):
        problems.append(
            f"MathJax did not run: {len(math)} element(s) of class 'math' and no mjx-container "
            "(is mathjax_path served from _static and loadable offline?)"
        )
    elif unrendered:
        for tag in unrendered[:limit]:
            problems.append(f'math not typeset by MathJax in {_where(tag)}: "{_snippet(tag.get_text(), 0, 0, 60)}"')
        if len(unrendered) > limit:
            problems.append(f"... and {len(unrendered) - limit} more math elements not typeset")
    for container in soup.find_all("mjx-container"):
        where = _where(container.parent)
        errors = {tag["data-mjx-error"] for tag in container.find_all(attrs={"data-mjx-error": True})}
        for message in sorted(errors):
            problems.append(f'MathJax TeX error "{message}" in {where}')
        # MathJax's noundefined extension typesets an unknown macro as red text (assistive MathML)
        for mtext in container.find_all("mtext", attrs={"mathcolor": "red"}):
            if mtext.get_text().startswith("\\"):
                problems.append(f'undefined TeX macro "{mtext.get_text()}" in {where}')
    return problems


def _decode_data_uri(uri: str) -> bytes:
    header, _, data = uri.partition(",")
    if header.endswith(";base64"):
        return base64.b64decode(data, validate=False)
    return urllib.parse.unquote_to_bytes(data)


def _local(url: str, site: str) -> bool:
    return urllib.parse.urlsplit(url).netloc == urllib.parse.urlsplit(site).netloc


def check_images(soup: BeautifulSoup, page_url: str, site: str, fetcher: _Fetcher) -> list[str]:
    problems = []
    for img in soup.find_all("img"):
        src = (img.get("src") or "").strip()
        if not src:
            problems.append(f"<img> without src in {_where(img)}")
            continue
        if src.startswith("data:"):
            try:
                if not _decode_data_uri(src):
                    problems.append(f"empty data: image in {_where(img)}")
            except (binascii.Error, ValueError) as exc:
                problems.append(f"data: image that does not decode ({exc}) in {_where(img)}")
            continue
        url = urllib.parse.urldefrag(urllib.parse.urljoin(page_url, src)).url
        if not _local(url, site):
            problems.append(f"image {src!r} is not served by the book (will not load offline)")
            continue
        status, body, error = fetcher.get(url)
        if status != 200:
            problems.append(f"broken image {src!r}: HTTP {status or error}")
        elif not body:
            problems.append(f"broken image {src!r}: empty file")
    return problems


IGNORED_SCHEMES = ("mailto:", "tel:", "javascript:", "data:", "ftp:", "file:")


def _check_target(href: str, page_url: str, page_ids: set[str], site: str, fetcher: _Fetcher):
    """None if ``href`` is fine or not ours to check, else the problem."""
    href = href.strip()
    if not href or href == "#" or href.lower().startswith(IGNORED_SCHEMES):
        return None
    url, fragment = urllib.parse.urldefrag(urllib.parse.urljoin(page_url, href))
    if not _local(url, site):
        return None
    fragment = urllib.parse.unquote(fragment)
    if url == urllib.parse.urldefrag(page_url).url:  # same page
        if fragment and fragment not in page_ids:
            return f"link {href!r}: no element with id {fragment!r} on this page"
        return None
    parts = urllib.parse.urlsplit(url)
    fetch = urllib.parse.urlunsplit(parts._replace(query=""))
    if fetch.endswith("/"):
        fetch += "index.html"
    status, _, error = fetcher.get(fetch)
    if status != 200:
        return f"broken link {href!r}: HTTP {status or error}"
    if fragment and fetch.endswith((".html", ".htm")) and fragment not in fetcher.ids(fetch):
        return f"broken link {href!r}: no element with id {fragment!r} on the target page"
    return None


def check_links(soup: BeautifulSoup, page_url: str, site: str, fetcher: _Fetcher) -> list[str]:
    page_ids = _ids_of(soup)
    problems, seen = [], set()
    for anchor in soup.find_all("a", href=True):
        href = anchor["href"]
        if href in seen:
            continue
        seen.add(href)
        problem = _check_target(href, page_url, page_ids, site, fetcher)
        if problem:
            problems.append(f"{problem} (in {_where(anchor)})")
    return problems


def _classes(tag) -> set[str]:
    return set(tag.get("class") or [])


def _last_line(tag) -> str:
    """The last non-empty line of the output's code (the exception line of a traceback)."""
    pre = tag.find("pre") or tag
    lines = [line.strip() for line in pre.get_text().splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""


def check_errors(soup: BeautifulSoup) -> list[str]:
    problems, reported = [], set()
    body = soup.body or soup
    for tag in body.find_all(class_="output"):
        classes = _classes(tag)
        if classes & {"traceback", "error"}:
            problems.append(f"notebook error output {_last_line(tag)!r} in {_where(tag)}")
            reported.add(id(tag))
        elif "stderr" in classes:
            text = (tag.find("pre") or tag).get_text()
            match = EXCEPTION_LINE.search(text)
            if match:
                line = text[match.start() :].strip().splitlines()[0]
                problems.append(f"error on stderr {line[:200]!r} in {_where(tag)}")
                reported.add(id(tag))
    for node in body.find_all(string=True):
        if isinstance(node, Comment) or node.parent.name in ("script", "style"):
            continue
        if any(id(parent) in reported for parent in node.parents):
            continue
        for needle in TRACEBACK_TEXTS:
            if needle in node:
                block = node.find_parent("pre") or node.parent
                problems.append(f"{needle!r} in {_where(block)}, ending {_last_line(block)!r}")
    for tag in body.find_all(class_="system-message"):
        problems.append(f"docutils system message: {' '.join(tag.get_text().split())[:200]!r}")
    return problems


# Paths of the machine that built the book: home and temp folders, kernel temp files, virtualenvs.
MACHINE_PATH = re.compile(r"(?:/home/\w|/root/|/tmp/|/Users/\w|/work/|ipykernel_\d|site-packages)")


def check_stderr(soup: BeautifulSoup) -> list[str]:
    """No stderr or warning output block: warnings become notices of the run (the build status page)."""
    body = soup.body or soup
    return [
        f"stderr/warning output {' '.join((tag.find('pre') or tag).get_text().split())[:120]!r} in {_where(tag)}"
        for tag in body.find_all(class_="output")
        if _classes(tag) & {"stderr", "warning"}
    ]


def check_machine_paths(static_html: str) -> list[str]:
    """No absolute path of the build machine anywhere in the page's HTML."""
    problems = []
    for match in list(MACHINE_PATH.finditer(static_html))[:5]:
        problems.append(f'machine path {match.group(0)!r}: "{_snippet(static_html, match.start(), match.end())}"')
    return problems


# A decimal number in prose: a float glued or printed into the text, with its significant digits.
PROSE_FLOAT = re.compile(r"(?<![\w.\-/:])-?(\d+\.\d+)(?:e[+-]?\d+)?(?![\w.]*\d)")
MAX_PROSE_DIGITS = 4


def _significant_digits(mantissa: str) -> int:
    return len(mantissa.replace(".", "").lstrip("0"))


def check_prose_floats(soup: BeautifulSoup, limit: int = 10) -> list[str]:
    """No number in prose (outside code, math and tables of code) with more than 4 significant digits."""
    problems = []
    for node in _visible_text_nodes(soup):
        if _in_math_element(node) or _in_signature(node):
            continue
        text = str(node)
        for match in PROSE_FLOAT.finditer(text):
            if _significant_digits(match.group(1)) > MAX_PROSE_DIGITS:
                problems.append(
                    f"{match.group(0)} has more than {MAX_PROSE_DIGITS} significant digits in {_where(node.parent)}: "
                    f'"{_snippet(text, match.start(), match.end())}"'
                )
    return problems[:limit] + ([f"... and {len(problems) - limit} more"] if len(problems) > limit else [])


def _redirect(static_html: str) -> str | None:
    """The target of a ``<meta http-equiv="refresh">`` page (Jupyter Book's root index.html)."""
    if "http-equiv" not in static_html.lower():  # no such attribute, no redirect: a page is not parsed for nothing
        return None
    soup = BeautifulSoup(static_html, "html.parser")
    for meta in soup.find_all("meta"):
        if (meta.get("http-equiv") or "").lower() == "refresh":
            match = re.search(r"url\s*=\s*['\"]?([^'\"]+)", meta.get("content") or "", re.I)
            if match:
                return match.group(1).strip()
    return None


# --------------------------------------------------------------------------------------------
# tests
# --------------------------------------------------------------------------------------------


@functools.cache
def _is_redirect(page: str) -> bool:
    """Whether the built `page` is a redirect (read once a session: the pages do not change during it, and
    about a hundred tests ask)."""
    return _redirect((BOOK_HTML / page).read_text(encoding="utf-8", errors="replace")) is not None


@pytest.mark.parametrize("page", PAGES)
def test_page(page, request):
    _fail_if_not_built()  # a failure, not a setup error, when the book was not built
    site, fetcher = request.getfixturevalue("site"), request.getfixturevalue("fetcher")
    page_url = urllib.parse.urljoin(site, page)
    static_html = (BOOK_HTML / page).read_text(encoding="utf-8", errors="replace")
    target = _redirect(static_html)
    if target is not None:  # a redirect page has no content of its own: check where it goes
        problem = _check_target(target, page_url, set(), site, fetcher)
        assert problem is None, f"{page}: redirect {problem}"
        return
    dom = _rendered(request, page).dom
    soup = BeautifulSoup(dom, "html.parser")
    base = soup.find("base", href=True)
    if base is not None:
        page_url = urllib.parse.urljoin(page_url, base["href"])
    problems = []
    problems += check_currency(static_html)
    problems += check_math(soup)
    problems += check_images(soup, page_url, site, fetcher)
    problems += check_links(soup, page_url, site, fetcher)
    problems += check_errors(soup)
    problems += check_stderr(soup)
    problems += check_machine_paths(static_html)
    problems += check_prose_floats(soup)
    request.getfixturevalue("contents").setdefault(page, _without_chrome(soup))  # this parse serves `_content` too
    if problems:
        pytest.fail(f"{page}: {len(problems)} problem(s)\n  - " + "\n  - ".join(problems), pytrace=False)


# At the desk, the landing page's first folded "why" opened: [the width of its cell, the table's width, how far the
# cell's top lies below the bottom of its row's first cell] in CSS px (book.css lays such a table out as a grid).
OPEN_FOLD_PROBE = """(function () {
    var table = Array.from(document.querySelectorAll("article table")).find(function (t) {
      return t.querySelector("td details");
    });
    var details = table.querySelector("td details"), cell = details.closest("td");
    details.open = true;
    var box = cell.getBoundingClientRect(), first = cell.parentElement.cells[0].getBoundingClientRect();
    return [box.width, table.getBoundingClientRect().width, box.top - first.bottom];
})()"""


def test_an_opened_fold_lies_under_its_row_across_the_table_at_the_desk(request):
    """At 1280 px an opened "why" reads at the table's width under its row, not down a narrow last column."""
    _fail_if_not_built()
    site, browser = request.getfixturevalue("site"), request.getfixturevalue("browser")
    with browser.tab(DESK, WIDTHS[DESK]) as tab:
        tab.load(urllib.parse.urljoin(site, LANDING))
        cell, table, below = tab.evaluate(OPEN_FOLD_PROBE)
    assert cell >= 0.95 * table and below >= -1, f"opened fold {cell:.0f} of {table:.0f} px wide, {below:.0f} px below"


@pytest.mark.parametrize("width", sorted(WIDTHS, reverse=True))
def test_a_screen_reader_hears_each_tables_column_names(width, request):
    """The claims tables are laid out as a grid at the desk and as cards on a phone, their header out of
    sight there; neither layout may take a table's rows or column headers out of the accessibility tree."""
    _fail_if_not_built()
    site, browser = request.getfixturevalue("site"), request.getfixturevalue("browser")
    with browser.tab(width, WIDTHS[width]) as tab:
        tab.load(urllib.parse.urljoin(site, "book/generated/scorecard.html"))
        headers, rows = tab.evaluate(
            '[document.querySelectorAll("article thead th").length, document.querySelectorAll("article tr").length]'
        )
        heard = tab.accessible_roles()
    assert headers > 0 and heard["columnheader"] == headers, (
        f"{heard['columnheader']} of {headers} column headers heard"
    )
    assert heard["row"] == rows, f"{heard['row']} of {rows} table rows heard"


def test_screenshot_index(request):
    """A screenshot of the landing page (where index.html leads) for people to look at, 1280 x 2000 px:
    _build/screenshots/index.png."""
    _fail_if_not_built()
    assert (BOOK_HTML / "index.html").is_file(), f"{BOOK_HTML}/index.html is missing"
    assert _redirect((BOOK_HTML / "index.html").read_text()) == LANDING, f"index.html does not lead to {LANDING}"
    _rendered(request, LANDING)
    png = SCREENSHOT_DIR / "index.png"
    assert png.is_file(), f"no screenshot {png}"
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{png} is not a PNG"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1280, 2000), f"{png} is {width}x{height}, not 1280x2000"
    assert len(data) > 8_000, f"{png} is only {len(data)} bytes: is the page blank?"
    try:
        from PIL import Image
    except ImportError:  # the size check above has to do
        return
    with Image.open(png) as image:
        colors = image.convert("RGB").getcolors(maxcolors=1 << 16)
    assert colors is None or len(colors) > 16, f"{png} has only {len(colors)} colors: blank page?"


@pytest.mark.parametrize("width", sorted(WIDTHS, reverse=True))
@pytest.mark.parametrize("page", PAGES)
def test_layout(page, width, request):
    """At 1280 px and on a phone (390 px): no table wider than its column, no page wider than the window,
    no formula cut off, no formula in a line of text wider than its box, no table cell narrower than a word, no code
    block that scrolls sideways, no figure drawn out of its proportions; at 1280 px
    no figure shown so small that its text reads under 8 pt."""
    _fail_if_not_built()
    if page == MISSING or _is_redirect(page):
        return
    problems = _rendered(request, page).layout[width]
    assert not problems, f"{page} at {width} px: {len(problems)} layout problem(s):\n  - " + "\n  - ".join(
        json.dumps(p) for p in problems[:15]
    )


# An estimate printed as "3 [3, 3]": an interval whose two ends equal its value says nothing an interval
# should (a single run or an exact value reads as the number alone).
_POWER = "10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+"  # the formatter's scientific notation: "1.3 × 10⁻⁴", "10⁵"
_NUMBER = rf"[-−]?(?:\d+(?:\.\d+)?(?:e[+-]?\d+|\u00a0×\u00a0{_POWER})?|{_POWER})"
DEGENERATE_INTERVAL = re.compile(rf"(?<![\w.])({_NUMBER})\s*\[\s*({_NUMBER})\s*,\s*({_NUMBER})\s*\]")
# A name of the code (snake_case) in reader text, outside code, math and function signatures; not a file
# name, a path or a call.
CODE_IDENTIFIER = re.compile(r"(?<![\w./\-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?!\w|\.\w|/|\()")
# A path in the repository ("book/chapters/two_layer"), which the identifier check lets through after a slash.
REPOSITORY_PATH = re.compile(
    r"(?<![\w./\-])(?:book|lib|notebooks|tests|workflow|data|config|benchmarks|_build)/[\w./\-]*\w"
)
# Mathematics typed as code in reader text, which the identifier check lets through when a slash follows
# ("sigma_a/sigma_c") or the name is Greek ("η_dec", "η*_dec"), and a power typed with a caret ("10^0.5"): the
# prose writes them as formulas ($\\sigma_a/\\sigma_c$, $\\eta_\\mathrm{dec}$, $10^{0.5}$), and glued text that
# needs one goes through `ChapterRun.prose` and {glue:md}.
_GREEK_NAMES = "alpha|beta|gamma|delta|epsilon|zeta|eta|theta|kappa|lambda|mu|nu|xi|pi|rho|sigma|tau|phi|chi|psi|omega"
MATH_AS_CODE = re.compile(rf"(?<![\w./\-])(?:(?:{_GREEK_NAMES})_\w+|[α-ωΑ-Ω]\*?_\w+)|(?<![\w.])\d+\^[-+\d({{]")
# A sentence that begins in lower case after a full stop ("... of the paper. the training prompts ..."): a clause
# pasted where a sentence was due. Not after an abbreviation the prose uses ("e.g.", "eq.", "Fig.", "et al.").
_ABBREVIATIONS = "e.g i.e eq eqs Eq Fig Figs al vs cf App Apps Sec Tab p no".split()
LOWERCASE_SENTENCE = re.compile("".join(rf"(?<!\b{re.escape(a)})" for a in _ABBREVIATIONS) + r"(?<!\.\.)\.\s+[a-z]")
# The pages whose text is not the book's prose: the bibliography quotes titles and identifiers ("arXiv:...").
NOT_PROSE = {"book/bibliography.html"}
# The appendices that document the code's names: parameters and the code behind the results.
NAMES_ALLOWED_ON = {"book/parameters.html", "book/generated/parameters.html", "book/generated/code.html"}


def check_degenerate_intervals(soup: BeautifulSoup, limit: int = 10) -> list[str]:
    problems = []
    for node in _visible_text_nodes(soup):
        if _in_math_element(node) or _in_signature(node):
            continue
        for match in DEGENERATE_INTERVAL.finditer(str(node)):
            value, low, high = (float(g) if "e" in g else number_from_text(g) for g in match.groups())
            if value == low == high:
                problems.append(
                    f'interval whose ends equal its value "{match.group(0)}" in {_where(node.parent)}: '
                    f'"{_snippet(str(node), match.start(), match.end())}"'
                )
    return problems[:limit] + ([f"... and {len(problems) - limit} more"] if len(problems) > limit else [])


def _reader_text_matches(soup: BeautifulSoup, pattern: re.Pattern, what: str, limit: int) -> list[str]:
    """Every match of `pattern` in the reader text of `soup` (outside code, math and function signatures), as
    'WHAT "match" in reader text in WHERE: "snippet"', at most `limit` and a count of the rest."""
    problems = []
    for node in _visible_text_nodes(soup):
        if _in_math_element(node) or _in_signature(node):
            continue
        for match in pattern.finditer(str(node)):
            problems.append(
                f'{what} "{match.group(0)}" in reader text in {_where(node.parent)}: '
                f'"{_snippet(str(node), match.start(), match.end())}"'
            )
    return problems[:limit] + ([f"... and {len(problems) - limit} more"] if len(problems) > limit else [])


def check_code_identifiers(soup: BeautifulSoup, limit: int = 10) -> list[str]:
    return _reader_text_matches(soup, CODE_IDENTIFIER, "code identifier", limit) + _reader_text_matches(
        soup, REPOSITORY_PATH, "repository path", limit
    )


def check_math_as_code(soup: BeautifulSoup, limit: int = 10) -> list[str]:
    return _reader_text_matches(soup, MATH_AS_CODE, "mathematics typed as code", limit)


# The blocks whose text is read as sentences; one that holds another (a list item with paragraphs) is read
# through its inner blocks.
_PROSE_BLOCKS = ("p", "li", "dd", "dt", "td", "th", "figcaption")


def _is_opaque(tag) -> bool:
    """A formula or a piece of code: read as one word, its characters are not prose."""
    return tag.name in SKIP_TEXT_IN or "math" in (tag.get("class") or []) or "sig" in (tag.get("class") or [])


def _block_text(block) -> str:
    """A block's reader text, every formula and piece of code in it one placeholder word: a sentence is read
    across them ("... becomes $X$. sympy derives ..." is one text, which the text nodes alone split)."""

    def inside_opaque(node) -> bool:
        for parent in node.parents:
            if parent is block:
                return False
            if _is_opaque(parent):
                return True
        return False

    parts = []
    for node in block.descendants:
        if inside_opaque(node):
            continue
        if isinstance(node, Tag) and _is_opaque(node):
            parts.append("X")
        elif isinstance(node, NavigableString) and not isinstance(node, Comment):
            parts.append(str(node))
    return "".join(parts)


def check_lowercase_sentences(soup: BeautifulSoup, limit: int = 10) -> list[str]:
    problems = []
    for block in soup.find_all(_PROSE_BLOCKS):
        if block.find(_PROSE_BLOCKS) or any(_is_opaque(p) for p in block.parents) or block.has_attr("hidden"):
            continue
        text = _block_text(block)
        for match in LOWERCASE_SENTENCE.finditer(text):
            problems.append(
                f'a sentence beginning in lower case "{match.group(0)}" in {_where(block)}: '
                f'"{_snippet(text, match.start(), match.end())}"'
            )
    return problems[:limit] + ([f"... and {len(problems) - limit} more"] if len(problems) > limit else [])


def _content(page: str, request) -> BeautifulSoup | None:
    """The rendered page without the theme's navigation, parsed once a session (the checks that read it only
    read it; a typeset page is large, and parsing it is most of these checks' time)."""
    _fail_if_not_built()
    if page == MISSING or _is_redirect(page):
        return None
    contents = request.getfixturevalue("contents")
    if page not in contents:  # `test_page` has not parsed it yet
        contents[page] = _without_chrome(BeautifulSoup(_rendered(request, page).dom, "html.parser"))
    return contents[page]


def _without_chrome(soup: BeautifulSoup) -> BeautifulSoup:
    """`soup` without the theme's navigation, which repeats the pages' titles (changed in place: its last reader)."""
    for chrome in soup.select("nav, header, footer, .bd-sidebar-primary, .bd-sidebar-secondary, .bd-header"):
        chrome.decompose()
    return soup


@pytest.fixture(scope="session")
def contents() -> dict[str, BeautifulSoup]:
    """page -> its content without the theme's navigation (`_without_chrome`), from the parse of `test_page` or of
    `_content`, whichever reads the page first."""
    return {}


@pytest.mark.parametrize("page", PAGES)
def test_no_interval_whose_ends_equal_its_value(page, request):
    soup = _content(page, request)
    problems = check_degenerate_intervals(soup) if soup is not None else []
    assert not problems, f"{page}: " + "\n  - ".join(problems)


@pytest.mark.parametrize("page", PAGES)
def test_no_code_identifiers_in_reader_text(page, request):
    soup = _content(page, request)
    problems = check_code_identifiers(soup) if soup is not None and page not in NAMES_ALLOWED_ON else []
    assert not problems, f"{page}: " + "\n  - ".join(problems)


@pytest.mark.parametrize("page", PAGES)
def test_no_mathematics_typed_as_code_in_reader_text(page, request):
    soup = _content(page, request)
    problems = check_math_as_code(soup) if soup is not None and page not in NAMES_ALLOWED_ON else []
    assert not problems, f"{page}: " + "\n  - ".join(problems)


@pytest.mark.parametrize("page", PAGES)
def test_no_sentence_begins_in_lower_case(page, request):
    soup = _content(page, request)
    skip = page in NAMES_ALLOWED_ON or page in NOT_PROSE
    problems = check_lowercase_sentences(soup) if soup is not None and not skip else []
    assert not problems, f"{page}: " + "\n  - ".join(problems)


def test_the_lowercase_check_finds_a_clause_after_a_full_stop_but_not_an_abbreviation():
    page = BeautifulSoup(
        "<p>Evidence: seeds. the runs rise (see eq. 12, e.g. here, Fig. 3 and Liu et al. below).</p>"
        '<p>It becomes <span class="math">\\(x\\)</span>.\nsympy derives it. Rerun: <code>a. b</code>.</p>',
        "html.parser",
    )
    assert [problem.split('"')[1] for problem in check_lowercase_sentences(page)] == [". t", ".\ns"]


def test_the_identifier_check_finds_names_and_repository_paths_but_not_code():
    page = BeautifulSoup(
        "<p>the value of best_depth, lemma-d1 (book/chapters/two_layer) and lib/geneft/statics.py, "
        "a ratio 3/4 and <code>lib/sim/task.py</code> with <code>best_depth</code></p>",
        "html.parser",
    )
    found = [problem.split('"')[1] for problem in check_code_identifiers(page)]
    assert found == ["best_depth", "book/chapters/two_layer", "lib/geneft/statics.py"]


def test_the_math_as_code_check_finds_greek_names_and_carets_but_not_formulas():
    page = BeautifulSoup(
        "<p>best sigma_a/sigma_c 30, η_dec = 1, η*_dec per decade, ratios 10^0.5, "
        '<span class="math">\\(\\eta_\\mathrm{dec} = 10^{0.5}\\)</span>, the set ratio_seeds/x</p>',
        "html.parser",
    )
    found = [problem.split('"')[1] for problem in check_math_as_code(page)]
    assert found == ["sigma_a", "η_dec", "η*_dec", "10^0"]


def test_the_currency_check_finds_dollar_signs_read_as_math():
    """Prose money ("$5 and $10") that dollarmath made a formula, in the HTML Sphinx writes; real formulas pass."""
    page = (
        '<section id="costs"><p>It costs <span class="math notranslate nohighlight">\\(5 and \\)</span>10, '
        'at <span class="math notranslate nohighlight">\\(\\mu &lt; 1\\)</span>.</p></section>'
    )
    assert check_currency(page) == ['dollar signs read as math "$5 and $" after #costs: escape a currency $ as \\$']
    assert check_currency(page.replace("5 and ", "x + y")) == []


def test_landing_page_names_every_catalogue_row_with_a_status(request):
    """The first page's reproducibility summary has a row per catalogue artifact, each with a status."""
    from lib.book.verdicts.summary import STATUSES, catalogue_rows

    _fail_if_not_built()
    landing = BOOK_HTML / "book" / "intro.html"
    soup = BeautifulSoup(landing.read_text(encoding="utf-8"), "html.parser")
    rows = {}
    for tr in soup.find_all("tr"):
        cells = tr.find_all("td")
        if cells:
            rows[" ".join(cells[0].get_text().split())] = " ".join(tr.get_text().split())
    missing = [row.key for row in catalogue_rows() if row.key not in rows]
    without_status = [
        key
        for key, text in rows.items()
        if key in {r.key for r in catalogue_rows()} and not any(status in text for status in STATUSES)
    ]
    assert not missing and not without_status, f"catalogue rows missing: {missing}; without a status: {without_status}"


@pytest.mark.parametrize("width", sorted(WIDTHS, reverse=True))
@pytest.mark.parametrize("page", SCREENSHOT_PAGES)
def test_screenshots_at_both_widths(page, width, request):
    """Screenshots of the first screens for people to look at, at 1280 x 900 and 390 x 844 px (taller,
    so that the first screens show): _build/screenshots/STEM-WIDTH.png."""
    _fail_if_not_built()
    _rendered(request, page)
    for png, _ in _screenshots(page, width):
        assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"no screenshot of {page}"
