"""The generated pages and the README against the built chapters (runs after `make book`)."""

import json
import re

from lib.book.pages.generated import readme_results, readme_results_block
from lib.book.verdicts.summary import STATUSES, catalogue_rows, reader_notices
from lib.util.paths import ROOT

RUNS = ROOT / "book" / "chapters"
HTML = ROOT / "_build" / "html"


def test_readme_results_match_the_built_chapters():
    """README.md's results table is the one the built metrics give (`python -m lib readme` rewrites it)."""
    written = readme_results_block((ROOT / "README.md").read_text())
    assert written == readme_results(RUNS), "README.md's results are stale: run `python -m lib readme`"


def test_no_chapter_of_the_book_shows_a_library_warning():
    """A warning raised at a chapter's default run is a notice in its box ("a library warned: ..."): shown, never
    hidden, and a defect of the page to fix where it arises (Fig. 8's NaN interval once showed scipy's
    DegenerateDataWarning)."""
    for metrics in sorted(RUNS.glob("*.metrics.json")):
        notices = reader_notices(json.loads(metrics.read_text())["_run"]["notices"])
        assert not [n for n in notices if n.startswith("a library warned")], (metrics.name, notices)


def test_the_generated_summary_names_every_catalogue_row_with_a_status():
    summary = (ROOT / "book" / "generated" / "summary.md").read_text()
    rows = [line for line in summary.splitlines() if line.startswith("| <a")]
    lines = {
        re.sub(r"<[^>]+>", "", line.split(" | ")[0].removeprefix("| ")): line for line in rows
    }  # first cell's text
    for row in catalogue_rows():
        assert row.key in lines, row.key
        assert any(f'"book-status">{status}<' in lines[row.key] for status in STATUSES), row.key


def test_every_code_link_of_the_book_lands_on_a_documented_function_with_its_source():
    """Figure captions and scorecard rows link to entries of "Code behind the results"; each entry has a
    [source] link to its module rendered by viewcode, offline (no web URL)."""
    import re

    code = (HTML / "book" / "generated" / "code.html").read_text()
    documented = set(re.findall(r'<dt class="sig sig-object py" id="(lib\.[\w.]+)"', code))
    assert documented
    for function in documented:
        module, name = function.rsplit(".", 1)
        source = f'href="../../_modules/{module.replace(".", "/")}.html#{name}"'
        assert source in code, f"{function}: no [source] link"
        assert (HTML / "_modules" / f"{module.replace('.', '/')}.html").exists(), module
    linked = set()
    for page in [HTML / "book" / "generated" / "scorecard.html", *(HTML / "book" / "chapters").glob("*.html")]:
        linked |= set(re.findall(r'code\.html#(lib\.[\w.]+)"', page.read_text()))
    assert linked and linked <= documented, sorted(linked - documented)
