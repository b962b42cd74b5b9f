"""The layers of `lib` (CONTRIBUTING, "Where things go"): each module imports only its own layer and those
below it, imports inside functions included, and the science imports nothing of the book's machinery.
A notebook reads its parameters through the chapter handle, never from its declaration."""

from __future__ import annotations

import pytest

from lib.util.deps import imported_modules, module_path
from lib.util.paths import ROOT

# top down, one folder each (lib/__init__.py draws them); a module belongs to the layer of its longest prefix
LAYERS = (
    ("command line", ("lib.__main__", "lib.book.commands")),
    ("reader pages", ("lib.book.pages",)),
    ("running a chapter", ("lib.book.run",)),
    ("verdicts", ("lib.book.verdicts",)),
    ("chapter declarations", ("lib.book.chapters",)),
    ("evidence store", ("lib.book.evidence",)),
    ("science", ("lib.sim", "lib.theory", "lib.geneft", "lib.diffusion")),
    ("utilities, statistics and provenance", ("lib", "lib.book", "lib.util")),
)
PACKAGES_ONLY = ("lib", "lib.book")  # these two prefixes place their package files only, not what is inside
SCIENCE = LAYERS.index(next(layer for layer in LAYERS if layer[0] == "science"))


def layer_of(module: str) -> int:
    """Index in LAYERS of `module` (a dotted lib name); the bare packages `lib` and `lib.book` (docstrings
    only) are utilities."""
    matches = [
        (len(prefix), index)
        for index, (_, prefixes) in enumerate(LAYERS)
        for prefix in prefixes
        if module == prefix or (prefix not in PACKAGES_ONLY and module.startswith(prefix + "."))
    ]
    if not matches:
        raise LookupError(f"{module} is in no layer: add it to LAYERS (and to CONTRIBUTING's picture)")
    return max(matches)[1]


def lib_modules() -> list[str]:
    return sorted(
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for path in (ROOT / "lib").rglob("*.py")
    )


@pytest.mark.parametrize("module", lib_modules())
def test_a_module_imports_only_its_layer_and_those_below(module):
    own = layer_of(module)
    upward = [
        f"{imported} ({LAYERS[layer_of(imported)][0]})"
        for imported in sorted(imported_modules(module_path(module), module))
        if layer_of(imported) < own
    ]
    assert not upward, f"{module} ({LAYERS[own][0]}) imports from a layer above: {', '.join(upward)}"


def test_the_science_imports_nothing_of_the_book():
    machinery = [
        (module, imported)
        for module in lib_modules()
        if layer_of(module) == SCIENCE
        for imported in imported_modules(module_path(module), module)
        if layer_of(imported) < SCIENCE
    ]
    assert not machinery


def test_the_layer_rule_catches_an_upward_import(tmp_path):
    science = tmp_path / "model.py"
    science.write_text("def f():\n    from lib.book.run.notebook import start_chapter\n    return start_chapter\n")
    imported = imported_modules(science, "lib.geneft.model")
    assert "lib.book.run.notebook" in imported and layer_of("lib.book.run.notebook") < layer_of("lib.geneft.model")


@pytest.mark.parametrize("notebook", sorted((ROOT / "notebooks").glob("*.py")), ids=lambda p: p.stem)
def test_a_notebook_does_not_import_its_declaration(notebook):
    declarations = sorted(
        m for m in imported_modules(notebook, None) if m == "lib.book.chapters" or m.startswith("lib.book.chapters.")
    )
    assert not declarations, f"{notebook.name} imports {declarations}: read parameters through the chapter handle"


def test_the_folder_tree_is_the_layer_table():
    """`ls lib` shows the layers: every folder of lib is a layer's prefix (or holds only layers)."""
    prefixes = {prefix for _, group in LAYERS for prefix in group}
    folders = {
        ".".join(path.relative_to(ROOT).parts)
        for path in (ROOT / "lib").rglob("*")
        if path.is_dir() and (path / "__init__.py").exists()
    }
    assert folders <= prefixes | {f for f in folders if layer_of(f) == SCIENCE}, sorted(folders - prefixes)
    assert not [m for m in lib_modules() if m.count(".") == 1 and m not in ("lib.__main__",) and m not in prefixes]
