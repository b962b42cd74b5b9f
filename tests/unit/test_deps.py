"""lib/deps.py: a chapter depends on its notebook, its declaration and the lib modules it imports."""

from lib.deps import chapter_dependencies, make_rule
from lib.paths import ROOT
from lib.specs import chapter_ids


def test_dependencies_are_the_import_closure():
    for chapter_id in chapter_ids():
        deps = {p.relative_to(ROOT).as_posix() for p in chapter_dependencies(chapter_id)}
        assert f"notebooks/{chapter_id}.py" in deps
        assert f"lib/specs/{chapter_id}.py" in deps
        assert {"lib/book.py", "lib/chapter.py", "lib/runner.py"} <= deps
        others = {f"lib/specs/{c}.py" for c in chapter_ids() if c != chapter_id}
        assert not deps & others, f"{chapter_id} depends on another chapter's declaration"
        assert "lib/bench.py" not in deps


def test_make_rule_format():
    rule = make_rule("one_layer", "book/chapters/one_layer.ipynb")
    first, *rest = rule.splitlines()
    assert first.startswith("book/chapters/one_layer.ipynb: ")
    assert all(line.endswith(":") for line in rest)
