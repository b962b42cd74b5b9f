"""Which `lib` modules a source file imports, and their transitive closure (imports inside functions included):
what a chapter depends on (`lib.book.chapters.dependencies`) and what a code fingerprint covers."""

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


def imported_modules(path: Path, module: str | None) -> set[str]:
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
                todo |= imported_modules(module_path(name), name) - seen
    return seen
