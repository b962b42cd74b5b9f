"""A figure's image reads out its caption's first sentence, not its file's path (book/_ext/figure_alt.py)."""

import importlib.util

from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.utils import new_document

from lib.util.paths import ROOT

spec = importlib.util.spec_from_file_location("figure_alt", ROOT / "book" / "_ext" / "figure_alt.py")
figure_alt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(figure_alt)


def test_formulas_read_as_text():
    assert figure_alt.tex_as_text(r"\sigma_a/\sigma_c \le \frac{1}{2}") == "σ_a/σ_c ≤ 1/2"
    assert figure_alt.tex_as_text(r"\eta_\mathrm{dec} = 10^{0.5}") == "η_dec = 10^0.5"


def test_an_image_named_by_its_path_takes_the_captions_first_sentence():
    document = new_document("page", get_default_settings(Parser))
    uri = "../../_images/" + "a" * 64 + ".png"
    caption = nodes.caption(
        "",
        nodes.Text("The paper's Fig. 2a: output for several "),
        nodes.math("", r"\mu_1"),
        nodes.Text(". Lines: the law."),
    )
    document += nodes.figure("", nodes.image(uri=uri, alt=uri), caption)
    document += nodes.figure("", nodes.image(uri="x.png", alt="a drawn disc"), caption.deepcopy())
    figure_alt.describe_figures(None, document, "page")
    alts = [image["alt"] for image in document.findall(nodes.image)]
    assert alts == ["The paper's Fig. 2a: output for several μ_1.", "a drawn disc"]
