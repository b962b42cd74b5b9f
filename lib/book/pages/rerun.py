"""An executed chapter as one standalone HTML page, readable offline (`lib run --html`, `lib page OUT.ipynb`).

The book renders chapters with Sphinx; a rerun outside the book (another folder, other parameters)
is rendered here with myst-nb's docutils renderer, without executing anything: glued numbers,
figures and the claims table come from the notebook's outputs. What Sphinx would add is done here:

- cells tagged `remove-cell` are left out, `remove-input`/`hide-input` show only their outputs, and the
  machinery cells (parameters, injected parameters) give way to a box at the top listing the
  parameters that differ from the chapter's defaults;
- `{cite:p}`/`{cite:t}` read `book/references.bib` (author-year, with a reference list at the end);
  `{numref}`, `{eq}`, `{ref}`, `{prf:ref}` link within the page, numbered in page order;
  `{prf:...}` statements (theorem, lemma, proof, ...) are framed boxes;
- math is typeset by the vendored MathJax (`book/_static/mathjax`), inlined, and figures are
  embedded, so the page is one file that needs no network.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lib.book.chapters import load
from lib.book.chapters.declaration import Chapter, ParameterError, short
from lib.util.paths import ROOT

if TYPE_CHECKING:
    from collections.abc import Callable

    from docutils.nodes import Node, system_message
    from docutils.parsers.rst.states import Inliner
    from nbformat import NotebookNode
    from pybtex.database import Entry

    Role = Callable[..., tuple[list[Node], list[system_message]]]

BIBLIOGRAPHY = ROOT / "book" / "references.bib"
MATHJAX = ROOT / "book" / "_static" / "mathjax" / "tex-svg-full.js"
MYST_EXTENSIONS = ["dollarmath", "amsmath", "colon_fence", "deflist", "substitution"]  # as _config.yml
_CHAPTER_CALL = re.compile(r"""start_chapter\(\s*["'](\w+)["']""")
_CITE = re.compile(r"\{cite:[pt]\}`([^`]+)`")
_FIGURE_NAME = re.compile(r"```\{(?:glue:figure|figure)\}[^\n]*\n(?:\s*:[^\n]*\n)*?\s*:name:\s*(\S+)")
_MATH_LABEL = re.compile(r"```\{math\}[^\n]*\n(?:\s*:[^\n]*\n)*?\s*:label:\s*(\S+)|\$\$\s*\((\S+)\)")
_PROOF = re.compile(r"```\{prf:(\w+)\}([^\n]*)\n(?:\s*:[^\n]*\n)*?\s*:label:\s*(\S+)")
_SECTION = re.compile(r"^\((\S+)\)=\s*\n#+\s+(.+)$", re.M)
_TITLED = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.S)


# ----------------------------------------------------------------------------------------------
# The notebook, prepared for a page
# ----------------------------------------------------------------------------------------------


def chapter_of(notebook: NotebookNode) -> Chapter:
    """The chapter an executed notebook is: the id in its `start_chapter("ID", ...)` call."""
    for cell in notebook.cells:
        if cell.cell_type == "code" and (found := _CHAPTER_CALL.search(cell.source)):
            try:
                return load(found.group(1))
            except ParameterError as err:
                raise ValueError(f"not a chapter of this book: {err}") from None
    raise ValueError("not a chapter of this book: no start_chapter(...) cell")


def changed_parameters(notebook: NotebookNode, chapter: Chapter) -> dict[str, tuple[Any, Any]]:
    """NAME -> (this run's value, default) for the parameters papermill injected that differ from the defaults."""
    injected = notebook.metadata.get("papermill", {}).get("parameters", {}) or {}
    defaults = chapter.defaults()
    return {k: (v, defaults[k]) for k, v in injected.items() if k in defaults and v != defaults[k]}


def _banner(chapter: Chapter, changed: dict[str, tuple[Any, Any]]) -> str:
    if not changed:
        return f":::{{note}}\nA rerun of chapter `{chapter.id}` at the book's default parameters.\n:::\n"
    rows = "\n".join(f"| `{k}` | `{short(v)}` | `{short(d)}` |" for k, (v, d) in changed.items())
    return (
        f":::{{attention}}\nA rerun of chapter `{chapter.id}` with parameters that differ from the book's "
        f"defaults; its numbers, figures and verdicts below are this run's.\n\n"
        f"| parameter | this run | default |\n|---|---|---|\n{rows}\n:::\n"
    )


def prepare(notebook: NotebookNode, chapter: Chapter) -> Any:
    """A copy of the notebook as the page shows it: hidden cells dropped, the parameters banner at the top."""
    import copy

    import nbformat

    page = copy.deepcopy(notebook)
    cells = []
    for cell in page.cells:
        tags = set(cell.metadata.get("tags", []))
        if tags & {"parameters", "injected-parameters"}:
            tags |= {"remove-cell"}  # the banner says what differs from the defaults
        if "remove-cell" in tags:  # kept, for the values it glues; myst-nb leaves it out of the page
            cell.metadata["tags"] = sorted(tags)
        elif tags & {"hide-input", "remove-input"} and cell.cell_type == "code":
            cell.metadata["tags"] = sorted((tags - {"hide-input"}) | {"remove-input"})
        cells.append(cell)
    first_markdown = next((i for i, c in enumerate(cells) if c.cell_type == "markdown"), -1)
    cells.insert(first_markdown + 1, nbformat.v4.new_markdown_cell(_banner(chapter, changed_parameters(page, chapter))))
    keys = list(
        dict.fromkeys(
            k.strip() for c in cells if c.cell_type == "markdown" for m in _CITE.findall(c.source) for k in m.split(",")
        )
    )
    if keys:
        cells.append(nbformat.v4.new_markdown_cell(_references(keys)))
    page.cells = cells
    return page


# ----------------------------------------------------------------------------------------------
# Citations and cross-references
# ----------------------------------------------------------------------------------------------


def _bibliography() -> dict[str, Any]:
    from pybtex.database import parse_file

    return dict(parse_file(str(BIBLIOGRAPHY)).entries)


def _author_year(entry: Entry, textual: bool) -> str:
    people = entry.persons.get("author", [])
    names = [" ".join(p.last_names) for p in people]
    who = names[0] + (" et al." if len(names) > 2 else f" and {names[1]}" if len(names) == 2 else "") if names else "?"
    year = entry.fields.get("year", "n.d.")
    return f"{who} ({year})" if textual else f"{who}, {year}"


def _references(keys: list[str]) -> str:
    bibliography = _bibliography()
    lines = ["## References", ""]
    for key in keys:
        entry = bibliography.get(key)
        if entry is None:
            continue
        people = ", ".join(
            " ".join(p.first_names + p.middle_names + p.last_names) for p in entry.persons.get("author", [])
        )
        where = entry.fields.get("booktitle") or entry.fields.get("journal") or ""
        title = entry.fields.get("title", "").replace("{", "").replace("}", "")
        lines += [f"(cite-{key})=", f"{people}. *{title}*. {where}, {entry.fields.get('year', '')}.", ""]
    return "\n".join(lines)


def _numbering(markdown: str) -> dict[str, str]:
    """label -> the text a reference to it shows, numbered in page order (figures, equations, statements)."""
    texts: dict[str, str] = {}
    for n, name in enumerate(_FIGURE_NAME.findall(markdown), 1):
        texts[f"fig:{name}"] = str(n)
    for n, pair in enumerate(_MATH_LABEL.findall(markdown), 1):
        texts[f"eq:{pair[0] or pair[1]}"] = f"({n})"
    counts: dict[str, int] = {}
    for kind, title, label in _PROOF.findall(markdown):
        counts[kind] = counts.get(kind, 0) + 1
        texts[f"prf:{label}"] = f"{kind.capitalize()} {counts[kind]}" + (f" ({title.strip()})" if title.strip() else "")
    for label, title in _SECTION.findall(markdown):
        texts[f"ref:{label}"] = title.strip()
    return texts


def _register_roles(numbering: dict[str, str]) -> None:
    """docutils roles and directives for what Sphinx extensions provide in the book."""
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives, roles

    bibliography = _bibliography()

    def docutils_role(make: Callable[[str, str], list[Node]]) -> Role:
        """A docutils role (its documented signature) from `make(rawtext, text)`, the nodes it returns."""

        def role(
            name: str,
            rawtext: str,
            text: str,
            lineno: int,
            inliner: Inliner,
            options: dict[str, Any] | None = None,
            content: list[str] | None = None,
        ) -> tuple[list[Node], list[system_message]]:
            return make(rawtext, text), []

        return role

    def cite(textual: bool) -> Role:
        def make(rawtext: str, text: str) -> list[Node]:
            parts = []
            for key in (k.strip() for k in text.split(",")):
                entry = bibliography.get(key)
                label = _author_year(entry, textual) if entry is not None else key
                parts.append(nodes.reference(rawtext, label, refuri=f"#{nodes.make_id('cite-' + key)}"))
            if textual:
                return parts
            inner = [nodes.Text("(")]
            for i, part in enumerate(parts):
                inner += ([nodes.Text("; ")] if i else []) + [part]
            return [*inner, nodes.Text(")")]

        return docutils_role(make)

    def reference(kind: str) -> Role:
        def make(rawtext: str, text: str) -> list[Node]:
            titled = _TITLED.match(text)
            title, label = (titled.group(1), titled.group(2)) if titled else (None, text.strip())
            number = numbering.get(f"{kind}:{label}")
            shown = (title or "").replace("%s", number or "").replace("{number}", number or "") or number or label
            if kind == "fig" and not title and number:
                shown = f"Fig. {number}"
            if number is None:  # on another page of the book: named, not linked
                return [nodes.emphasis(rawtext, shown)]
            return [nodes.reference(rawtext, shown, refuri=f"#{nodes.make_id(label)}")]

        return docutils_role(make)

    roles.register_local_role("cite:p", cite(False))
    roles.register_local_role("cite:t", cite(True))
    roles.register_local_role("numref", reference("fig"))
    roles.register_local_role("eq", reference("eq"))
    roles.register_local_role("ref", reference("ref"))
    roles.register_local_role("prf:ref", reference("prf"))
    roles.register_local_role("doc", reference("doc"))

    class Statement(Directive):
        """`{prf:theorem} Title` and its kin: a framed, titled box with an anchor."""

        optional_arguments = 1
        final_argument_whitespace = True
        has_content = True
        option_spec = {"label": directives.unchanged, "class": directives.unchanged, "nonumber": directives.flag}

        def run(self) -> list[Node]:
            kind = self.name.split(":")[-1]
            label = self.options.get("label")
            heading = numbering.get(f"prf:{label}") if label else None
            heading = heading or (kind.capitalize() + (f" ({self.arguments[0]})" if self.arguments else ""))
            box = nodes.admonition(classes=["prf", kind])
            box += nodes.title(text=heading)
            if label:
                box["ids"].append(nodes.make_id(label))
            self.state.nested_parse(self.content, self.content_offset, box)
            return [box]

    for kind in ("theorem", "lemma", "proof", "proposition", "assumption", "definition", "corollary", "remark"):
        directives.register_directive(f"prf:{kind}", Statement)


# ----------------------------------------------------------------------------------------------
# The page
# ----------------------------------------------------------------------------------------------


def _inline_mathjax(page: str) -> str:
    """The vendored MathJax inside the page (no network, no file beside it)."""
    script = MATHJAX.read_text().replace("</script", "<\\/script")
    return re.sub(
        r'<script type="text/javascript" src="[^"]*"></script>', lambda _: f"<script>{script}</script>", page, count=1
    )


def read_chapter_notebook(path: Path) -> tuple[NotebookNode, Chapter]:
    """(the notebook, its chapter) of an executed chapter notebook; ParameterError (one line naming `path`)
    for anything else: not a regular file, not UTF-8 JSON, not a Jupyter notebook, not a chapter of this book."""
    import nbformat

    from lib.book.verdicts.claims import MAX_NOTEBOOK_BYTES, MetricsError, read_regular_file, unfinished_notebook

    try:
        text = read_regular_file(path, MAX_NOTEBOOK_BYTES, "notebook").decode("utf-8")
        notebook = nbformat.reads(text, as_version=4)
    except MetricsError as err:
        raise ParameterError(str(err)) from None
    except UnicodeDecodeError as err:
        raise ParameterError(f"{path}: not a notebook (not UTF-8 at byte {err.start})") from None
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError, nbformat.ValidationError) as err:
        reason = short(str(err).splitlines()[0]) if str(err).strip() else type(err).__name__
        raise ParameterError(f"{path}: not a Jupyter notebook ({reason})") from None
    try:
        chapter = chapter_of(notebook)
    except (ValueError, AttributeError, TypeError) as err:
        raise ParameterError(f"{path}: {err}") from None
    if (why := unfinished_notebook(notebook.cells)) is not None:
        raise ParameterError(f"{path}: {why}; a page shows a run that finished")
    return notebook, chapter


def render_page(notebook_path: Path, output: Path | None = None) -> Path:
    """Write the executed notebook as a standalone page (default: beside it, `.html`); return its path."""
    import docutils.core
    import nbformat
    from myst_nb.docutils_ import Parser

    from lib.util.io import atomic_write_text

    notebook_path = Path(notebook_path)
    output = Path(output) if output else notebook_path.with_suffix(".html")
    notebook, chapter = read_chapter_notebook(notebook_path)
    page = prepare(notebook, chapter)
    markdown = "\n\n".join(c.source for c in page.cells if c.cell_type == "markdown")
    _register_roles(_numbering(markdown))
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / f"{chapter.id}.ipynb"
        nbformat.write(page, source)
        text = docutils.core.publish_file(
            source_path=str(source),
            destination_path=str(Path(tmp) / "page.html"),
            parser=Parser(),
            writer_name="html5",
            settings_overrides={
                "nb_execution_mode": "off",
                "nb_output_folder": str(Path(tmp) / "outputs"),
                "nb_merge_streams": True,
                "nb_render_markdown_format": "myst",
                "myst_enable_extensions": MYST_EXTENSIONS,
                "math_output": "MathJax mathjax.js",
                "stylesheet_path": ["minimal.css", "plain.css"],  # a fresh list: myst-nb appends its CSS to it
                "image_loading": "embed",
                "report_level": 3,
                "halt_level": 5,
                "traceback": True,
                "title": chapter.title,
            },
        )
        page_html = (text.decode() if isinstance(text, bytes) else text).replace(f'alt="{tmp}/outputs/', 'alt="')
    page_html = _inline_mathjax(page_html)
    atomic_write_text(output, page_html)
    return output
