"""The layers of `lib` (CONTRIBUTING, "Where things go"): each module imports only its own layer and those
below it, imports inside functions included, and the science imports nothing of the book's machinery.
A notebook reads its parameters through the chapter handle, never from its declaration."""

from __future__ import annotations

import pytest

from lib.deps import _imported_modules, module_path
from lib.paths import ROOT

# top down; a module belongs to the layer of its longest matching prefix
LAYERS = (
    ("command line and pages", ("lib.__main__", "lib.evidence.__main__", "lib.runner", "lib.pages", "lib.code_links",
                                "lib.changelog", "lib.rerun_page", "lib.bench")),
    ("notebook handle and claims", ("lib.book", "lib.papermill_route", "lib.claims", "lib.summary",
                                    "lib.decidability", "lib.outputs")),
    ("chapter declarations", ("lib.specs", "lib.chapter")),
    ("evidence store", ("lib.evidence",)),
    ("science", ("lib.sim", "lib.theory", "lib.geneft", "lib.diffusion")),
    ("utilities, statistics and provenance", ("lib", "lib.stats", "lib.comparisons", "lib.numbers", "lib.io",
                                              "lib.paths", "lib.plotting", "lib.progress", "lib.runtime", "lib.wording",
                                              "lib.fingerprint", "lib.deps", "lib.repository")),
)  # fmt: skip
SCIENCE = LAYERS.index(next(layer for layer in LAYERS if layer[0] == "science"))


def layer_of(module: str) -> int:
    """Index in LAYERS of `module` (a dotted lib name); the bare package `lib` is a utility."""
    matches = [
        (len(prefix), index)
        for index, (_, prefixes) in enumerate(LAYERS)
        for prefix in prefixes
        if module == prefix or (prefix != "lib" and module.startswith(prefix + "."))
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
        for imported in sorted(_imported_modules(module_path(module), module))
        if layer_of(imported) < own
    ]
    assert not upward, f"{module} ({LAYERS[own][0]}) imports from a layer above: {', '.join(upward)}"


def test_the_science_imports_nothing_of_the_book():
    machinery = [
        (module, imported)
        for module in lib_modules()
        if layer_of(module) == SCIENCE
        for imported in _imported_modules(module_path(module), module)
        if layer_of(imported) < SCIENCE
    ]
    assert not machinery


def test_the_layer_rule_catches_an_upward_import(tmp_path):
    science = tmp_path / "model.py"
    science.write_text("def f():\n    from lib.book import start_chapter\n    return start_chapter\n")
    imported = _imported_modules(science, "lib.geneft.model")
    assert "lib.book" in imported and layer_of("lib.book") < layer_of("lib.geneft.model")


@pytest.mark.parametrize("notebook", sorted((ROOT / "notebooks").glob("*.py")), ids=lambda p: p.stem)
def test_a_notebook_does_not_import_its_declaration(notebook):
    declarations = sorted(
        m for m in _imported_modules(notebook, None) if m == "lib.specs" or m.startswith("lib.specs.")
    )
    assert not declarations, f"{notebook.name} imports {declarations}: read parameters through the chapter handle"
