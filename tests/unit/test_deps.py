"""lib/book/chapters/dependencies.py: a chapter depends on its notebook, its declaration and the lib modules it imports."""

from lib.book.chapters import chapter_ids
from lib.book.chapters.dependencies import chapter_dependencies, make_rule
from lib.util.paths import ROOT


def test_dependencies_are_the_import_closure():
    for chapter_id in chapter_ids():
        deps = {p.relative_to(ROOT).as_posix() for p in chapter_dependencies(chapter_id)}
        assert f"notebooks/{chapter_id}.py" in deps
        assert f"lib/book/chapters/{chapter_id}.py" in deps
        assert {"lib/book/run/notebook.py", "lib/book/chapters/declaration.py", "lib/book/run/runner.py"} <= deps
        others = {f"lib/book/chapters/{c}.py" for c in chapter_ids() if c != chapter_id}
        assert not deps & others, f"{chapter_id} depends on another chapter's declaration"
        assert "lib/book/commands/bench.py" not in deps


def test_make_rule_format():
    rule = make_rule("one_layer", "book/chapters/one_layer.ipynb")
    first, *rest = rule.splitlines()
    assert first.startswith("book/chapters/one_layer.ipynb: ")
    assert all(line.endswith(":") for line in rest)
