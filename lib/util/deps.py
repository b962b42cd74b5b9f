"""Which files of `lib/` a chapter depends on, for make (like `gcc -MM`).

A chapter depends on its notebook, its declaration `lib/book/chapters/ID.py`, and every `lib`
module either of them imports, transitively (imports inside functions included).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

from lib.util.io import memo_by_content
from lib.util.paths import ROOT


@cache
def module_path(module: str) -> Path | None:
    """File of a dotted `lib...` module name (a package's `__init__.py`), or None (memoised per process: a
    chapter's fingerprint asks for each of its modules hundreds of times)."""
    base = ROOT.joinpath(*module.split("."))
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    return None


def _with_parents(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def import_statements(path: Path) -> list[list]:
    """Every import of the source at `path`, inside functions too, as [level, module, names]: `import a.b`
    is [-1, "", ["a.b"]], `from ..a import b` is [2, "a", ["b"]] (memoised on disk by the file's content)."""
    source = path.read_bytes()

    def parse() -> list[list]:
        return [
            [-1, "", [alias.name for alias in node.names]]
            if isinstance(node, ast.Import)
            else [node.level, node.module or "", [alias.name for alias in node.names]]
            for node in ast.walk(ast.parse(source))
            if isinstance(node, (ast.Import, ast.ImportFrom))
        ]

    return memo_by_content("imports", source, parse)


def _imported_modules(path: Path, module: str | None) -> set[str]:
    """Dotted names of the `lib` modules that the source at `path` imports."""
    found: set[str] = set()
    package = module if module and path.name == "__init__.py" else (module.rpartition(".")[0] if module else "")
    for level, name, names in import_statements(path):
        if level < 0:
            found.update(names)
            continue
        if level:
            parent = package.split(".")[: len(package.split(".")) - level + 1]
            base = ".".join(parent + ([name] if name else []))
        else:
            base = name
        found.add(base)
        found.update(f"{base}.{alias}" for alias in names)
    return {m for m in found if m.split(".")[0] == "lib" and module_path(m) is not None}


def module_closure(modules: set[str]) -> set[str]:
    """`modules` (dotted `lib` names) and every `lib` module they import, transitively, with parents."""
    todo, seen = set(modules), set()
    while todo:
        module = todo.pop()
        for name in _with_parents(module):
            if name not in seen and module_path(name) is not None:
                seen.add(name)
                todo |= _imported_modules(module_path(name), name) - seen
    return seen


def chapter_dependencies(chapter_id: str) -> list[Path]:
    """The notebook, the declaration and the transitive closure of `lib` imports, sorted."""
    notebook = ROOT / "notebooks" / f"{chapter_id}.py"
    seen = module_closure(
        _imported_modules(notebook, None) | {f"lib.book.chapters.{chapter_id}", "lib.book.run.runner"}
    )
    return sorted({notebook} | {module_path(m) for m in seen})


def make_rule(chapter_id: str, target: str) -> str:
    """A make rule `target: deps`, plus an empty rule per dependency (a deleted file is no error)."""
    deps = [str(p.relative_to(ROOT)) for p in chapter_dependencies(chapter_id)]
    return f"{target}: {' '.join(deps)}\n" + "".join(f"{d}:\n" for d in deps)
