"""Issue 35: every text of a figure at 8 pt or more as shown in the book's column (a figure wider than
`lib.util.plotting.COLUMN_INCHES` is scaled down to it). The figure functions of `lib` are drawn on small
synthetic inputs; the notebooks' own figures are checked on their source (literal widths and font sizes)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from lib.util.plotting import COLUMN_INCHES, panel_grid, small_text, stage_handles, use_book_style  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "notebooks").glob("*.py")) + sorted((ROOT / "lib").rglob("*.py"))


@pytest.fixture(autouse=True)
def _book_style():
    with matplotlib.rc_context():
        use_book_style()
        yield
    plt.close("all")


def test_small_text_flags_a_wide_figure():
    fig, ax = plt.subplots(figsize=(10, 3))
    ax.set_title("title", fontsize=9)
    problems = small_text(fig)
    assert problems[0].startswith("figure 10 in wide")
    assert any("'title'" in p for p in problems)


def test_panel_grid_fits_the_column():
    fig, axes = panel_grid(3, (3.7, 3.3), max_columns=2)
    assert len(axes) == 3 and fig.get_figwidth() <= COLUMN_INCHES


def test_stage_bands_have_legend_entries():
    assert [h.get_label() for h in stage_handles()] == ["growth stage", "suppression stage"]


def _diffusion_figures():
    from lib.diffusion import figures
    from lib.diffusion.data import Circles

    grid = np.linspace(0, 1, 5)
    cal = {
        c: {"grid": grid, "colour_curve": grid, "size_curve": grid, "noise_readout": np.full((4, 3), 0.5)}
        for c in (0.2, 0.6)
    }
    steps = np.arange(0, 50, 10)
    runs = {
        c: {
            "eval_steps": steps,
            "loss_diffusion": np.ones((2, len(steps))),
            "loss_recon": np.ones((2, len(steps))),
            "gamma": np.ones((2, len(steps), 2)),
        }
        for c in (0.2, 0.6)
    }
    images = {c: np.zeros((len(steps), 1, 3, 8, 8), dtype=np.uint8) for c in (0.2, 0.6)}
    return {
        "data_grid": lambda: figures.data_grid([Circles(0.2, resolution=8), Circles(0.6, resolution=8)]),
        "calibration": lambda: figures.calibration(cal),
        "training_curves": lambda: figures.training_curves(runs),
        "samples_over_training": lambda: figures.samples_over_training(images, steps, every=1),
    }


@pytest.mark.parametrize("name", ["data_grid", "calibration", "training_curves", "samples_over_training"])
def test_diffusion_figures_readable(name):
    fig = _diffusion_figures()[name]()
    assert not small_text(fig), f"{name}: {small_text(fig)}"


def _figsize_widths(path: Path):
    """(line, width) of every `figsize=(W, H)` whose width is a number literal, and of every
    `panel_grid(n, (w, h), max_columns=k)` (its widest row, k panels of width w)."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for kw in node.keywords:
            if kw.arg == "figsize" and isinstance(kw.value, ast.Tuple):
                w = kw.value.elts[0]
                if isinstance(w, ast.Constant) and isinstance(w.value, (int, float)):
                    yield node.lineno, w.value
        name = getattr(node.func, "id", getattr(node.func, "attr", ""))
        if name == "panel_grid" and len(node.args) >= 2 and isinstance(node.args[1], ast.Tuple):
            w = node.args[1].elts[0]
            cols = next((kw.value for kw in node.keywords if kw.arg == "max_columns"), ast.Constant(3))
            if isinstance(w, ast.Constant) and isinstance(cols, ast.Constant):
                yield node.lineno, w.value * cols.value


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_figure_widths_fit_the_column(path):
    wide = [(line, w) for line, w in _figsize_widths(path) if w > COLUMN_INCHES + 1e-9]
    assert not wide, f"{path.name}: figures wider than {COLUMN_INCHES} in (line, width): {wide}"


FONT = re.compile(r"\b(?:fontsize|labelsize)\s*=\s*([0-9.]+)")


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_font_sizes_at_least_8pt(path):
    small = [(m.group(0)) for m in FONT.finditer(path.read_text()) if float(m.group(1)) < 8]
    assert not small, f"{path.name}: font sizes under 8 pt: {small}"
