"""A cross-referenced name of the code breaks after its dots and underscores only (book/_ext/code_breaks.py)."""

import importlib.util

from lib.util.paths import ROOT

spec = importlib.util.spec_from_file_location("code_breaks", ROOT / "book" / "_ext" / "code_breaks.py")
code_breaks = importlib.util.module_from_spec(spec)
spec.loader.exec_module(code_breaks)


def test_a_name_breaks_between_its_parts_and_other_code_is_left_alone():
    name = (
        '<code class="xref py py-func docutils literal notranslate"><span class="pre">lib.sim.fit_rate()</span></code>'
    )
    plain = '<code class="docutils literal notranslate"><span class="pre">a.b_c</span></code>'
    assert code_breaks.with_breaks(name + plain) == (
        '<code class="xref py py-func docutils literal notranslate"><span class="pre">'
        "lib.<wbr>sim.<wbr>fit_<wbr>rate()</span></code>" + plain
    )
