"""Which files a chapter depends on, for make (like `gcc -MM`) and for the chapter's code fingerprint.

A chapter depends on its notebook, its declaration `lib/book/chapters/ID.py`, the runner that executes it
(`lib.book.run.runner`, named only: this layer imports nothing above it), and every `lib` module these import,
transitively (imports inside functions included).
"""

from __future__ import annotations

from pathlib import Path

from lib.util.deps import imported_modules, module_closure, module_path
from lib.util.paths import NOTEBOOKS, ROOT


def chapter_dependencies(chapter_id: str) -> list[Path]:
    """The notebook, the declaration and the transitive closure of `lib` imports, sorted."""
    notebook = NOTEBOOKS / f"{chapter_id}.py"
    seen = module_closure(imported_modules(notebook, None) | {f"lib.book.chapters.{chapter_id}", "lib.book.run.runner"})
    return sorted({notebook} | {module_path(m) for m in seen})


def make_rule(chapter_id: str, target: str) -> str:
    """A make rule `target: deps`, plus an empty rule per dependency (a deleted file is no error)."""
    deps = [str(p.relative_to(ROOT)) for p in chapter_dependencies(chapter_id)]
    return f"{target}: {' '.join(deps)}\n" + "".join(f"{d}:\n" for d in deps)
