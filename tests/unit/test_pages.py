"""lib/book/pages/generated.py: the README's results block and the pages generated from the declarations."""

import re

import pytest

from lib.book.pages.generated import (
    README_END,
    README_START,
    parameters_page,
    readme_results_block,
    with_readme_results,
)


def test_the_readme_block_is_replaced_between_its_markers_only():
    readme = f"# Title\n\n{README_START}\nold table\n{README_END}\n\n## Next\n"
    new = with_readme_results(readme, "| new |\n")
    assert new == f"# Title\n\n{README_START}\n| new |\n{README_END}\n\n## Next\n"
    assert readme_results_block(new) == "| new |\n"
    assert with_readme_results(new, "| new |\n") == new  # idempotent


def test_a_readme_without_markers_is_refused():
    with pytest.raises(ValueError, match="markers"):
        with_readme_results("# no markers\n", "| x |\n")


def test_parameters_page_has_a_section_per_chapter_and_no_cite_in_headings():
    page = parameters_page()
    headings = [line for line in page.splitlines() if line.startswith("#")]
    assert len(headings) == 6 and not any("{cite" in h for h in headings)


def test_parameters_page_reads_every_meaning_whole_in_its_own_cell():
    """A bar, a star or a dollar in a parameter's meaning ("|w_ij(0)|", "stop_tol * ||x_hat||") neither ends its
    cell nor starts a formula or emphasis: the page's tables, rendered as MyST reads them (markdown-it with
    tables), give each parameter five cells and its meaning word for word."""
    from bs4 import BeautifulSoup
    from markdown_it import MarkdownIt

    from lib.book.chapters import chapter_ids, load

    page = parameters_page().replace("```{table}\n:class: book-cards\n", "").replace("```\n", "")
    rows = BeautifulSoup(MarkdownIt("commonmark").enable("table").render(page), "html.parser").select("tbody tr")
    meanings = [info.help for chapter_id in chapter_ids() for info in load(chapter_id).describe()]
    assert len(rows) == len(meanings)
    assert all(len(row.find_all("td")) == 5 for row in rows)
    assert [row.find_all("td")[-1].get_text() for row in rows] == meanings
    assert any("|" in meaning for meaning in meanings) and any("*" in meaning for meaning in meanings)


@pytest.fixture(scope="module")
def pages_without_runs(tmp_path_factory):
    """Every generated page written before any chapter ran (`write_pages`; the status page checks every stored
    shard, seconds): the folder they are in."""
    from lib.book.pages.generated import write_pages

    folder = tmp_path_factory.mktemp("pages")
    write_pages(folder / "runs", folder / "generated")
    return folder / "generated"


@pytest.mark.slow(10)
def test_the_status_page_lists_every_chapter_even_without_a_run(pages_without_runs):
    from lib.book.chapters import chapter_ids

    page = (pages_without_runs / "status.md").read_text()  # what `status_page` gives for a folder without runs
    assert page.startswith("(build-status)=\n# Build status")
    assert all(f"{{doc}}`../chapters/{c}` | not run" in page for c in chapter_ids())


def test_write_pages_without_runs_writes_every_page(pages_without_runs):
    """Before any chapter ran, every generated page exists and the summary still names every row."""
    from lib.book.verdicts.summary import catalogue_rows

    names = {p.name for p in pages_without_runs.iterdir()}
    assert {"summary.md", "scorecard.md", "status.md", "parameters.md", "notes.md"} <= names
    summary = re.sub(r"<[^>]+>", "", (pages_without_runs / "summary.md").read_text())  # the text of its cells
    assert all(f"| {row.key} |" in summary for row in catalogue_rows())
    assert "undecided at this budget" in summary
