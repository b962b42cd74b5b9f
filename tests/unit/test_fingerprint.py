"""Code fingerprints change with code, not with prose, and a shard's fingerprint with what it computes, not where it lives.

The shard fingerprint cases use small synthetic packages `pkg` written into a temporary folder.
"""

import textwrap

import pytest

from lib.util import fingerprint
from lib.util.fingerprint import code_fingerprint, code_modules, reached_code


def test_closure_contains_imports():
    assert {"lib.geneft.train", "lib.geneft.network", "lib.util.io"} <= set(code_modules("lib.geneft.train"))


def test_stable_and_distinct():
    assert code_fingerprint("lib.util.io") == code_fingerprint("lib.util.io")
    assert code_fingerprint("lib.util.io") != code_fingerprint("lib.geneft.train")


def test_docstrings_and_comments_do_not_count():
    def digest(src):
        import ast

        return ast.dump(fingerprint._strip_docstrings(ast.parse(textwrap.dedent(src))), annotate_fields=False)

    a = digest('def f(x):\n    """Doc."""\n    return x + 1  # comment\n')
    b = digest("def f(x):\n    return x + 1\n")
    c = digest("def f(x):\n    return x + 2\n")
    assert a == b != c


# ----------------------------------------------------------------------------------------------
# What a shard reaches
# ----------------------------------------------------------------------------------------------

SHARD = """
from pkg import util
from pkg.model import Model

def shard(config, shard, checkpoint=None):
    return {"y": util.scale(Model(config["n"]).run(), shard["k"])}
"""
UTIL = """
import numpy as np

FACTOR = 2.0

def scale(x, k):
    return np.asarray(x) * k * FACTOR
"""
MODEL = """
from dataclasses import dataclass

from pkg.util import FACTOR


@dataclass
class Model:
    n: int
    offset: float = FACTOR

    def run(self):
        return [i + self.offset for i in range(self.n)]
"""


def write(tmp_path, **modules: str) -> None:
    """The package `pkg` under tmp_path with the given modules (dotted names relative to pkg), and only those."""
    base = tmp_path / "pkg"
    for old in base.rglob("*.py") if base.exists() else []:
        old.unlink()
    (base / "__init__.py").parent.mkdir(parents=True, exist_ok=True)
    (base / "__init__.py").write_text("")
    for name, source in modules.items():
        path = base.joinpath(*name.split(".")).with_suffix(".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.parent != base:
            (path.parent / "__init__.py").write_text("")
        path.write_text(textwrap.dedent(source))


def fp(tmp_path, function="pkg.shards:shard", **kwargs) -> str:
    return reached_code(function, root=tmp_path, package="pkg", **kwargs).fingerprint


@pytest.fixture
def base(tmp_path):
    write(tmp_path, shards=SHARD, util=UTIL, model=MODEL)
    return fp(tmp_path)


def test_reached_objects_are_keyed_by_name(tmp_path, base):
    reached = reached_code("pkg.shards:shard", root=tmp_path, package="pkg")
    assert set(reached.objects) == {"shard", "scale", "FACTOR", "Model"}
    assert reached.locations["scale"] == "pkg.util:scale"


def test_moving_a_function_to_another_module_keeps_it(tmp_path, base):
    util = UTIL.replace("def scale(x, k):\n    return np.asarray(x) * k * FACTOR\n", "")
    helpers = (
        "import numpy\nfrom pkg.util import FACTOR\n\ndef scale(x, k):\n    return numpy.asarray(x) * k * FACTOR\n"
    )
    shard = SHARD.replace("from pkg import util", "from pkg import helpers").replace("util.scale", "helpers.scale")
    write(tmp_path, shards=shard, util=util, helpers=helpers, model=MODEL)
    assert fp(tmp_path) == base


def test_renaming_a_module_keeps_it(tmp_path, base):
    shard = SHARD.replace("from pkg.model import Model", "from pkg.nets.mlp import Model")
    write(tmp_path, shards=shard, util=UTIL, **{"nets.mlp": MODEL})
    assert fp(tmp_path) == base
    aliased = SHARD.replace("from pkg import util", "import pkg.util as tools").replace("util.", "tools.")
    write(tmp_path, shards=aliased, util=UTIL, model=MODEL)
    assert fp(tmp_path) == base


def test_an_unrelated_function_beside_keeps_it(tmp_path, base):
    write(tmp_path, shards=SHARD + "\ndef other():\n    return 1\n", util=UTIL + "\nSPARE = 3\n", model=MODEL)
    assert fp(tmp_path) == base
    write(tmp_path, shards=SHARD, util=UTIL, model=MODEL + "\nclass Unused:\n    x = 1\n")
    assert fp(tmp_path) == base


def test_docstrings_comments_and_annotations_keep_it(tmp_path, base):
    util = UTIL.replace("def scale(x, k):", 'def scale(x: "Array", k: float) -> "Array":\n    """Scaled."""  # why')
    write(tmp_path, shards=SHARD, util=util, model=MODEL)
    assert fp(tmp_path) == base


def test_a_reached_function_edited_changes_it(tmp_path, base):
    write(tmp_path, shards=SHARD, util=UTIL.replace("* k * FACTOR", "* k * FACTOR + 1"), model=MODEL)
    assert fp(tmp_path) != base


def test_a_reference_through_a_module_attribute_is_followed(tmp_path, base):
    """`util.scale(...)` through the imported module `util`: an edit of scale is seen."""
    write(tmp_path, shards=SHARD, util=UTIL.replace("np.asarray(x) * k", "np.asarray(x) / k"), model=MODEL)
    assert fp(tmp_path) != base


def test_a_class_method_is_followed(tmp_path, base):
    write(tmp_path, shards=SHARD, util=UTIL, model=MODEL.replace("i + self.offset", "i - self.offset"))
    assert fp(tmp_path) != base


def test_a_constant_changed_changes_it(tmp_path, base):
    """FACTOR is read by scale and, as a dataclass field's default, by Model."""
    write(tmp_path, shards=SHARD, util=UTIL.replace("FACTOR = 2.0", "FACTOR = 3.0"), model=MODEL)
    assert fp(tmp_path) != base


def test_defaults_decorators_bases_and_local_imports_are_followed(tmp_path):
    shards = """
    from pkg import parts

    @parts.traced
    def shard(config, shard, checkpoint=None, scale=parts.SCALE):
        from pkg.parts import Child

        return Child().value() * scale
    """
    parts = """
    SCALE = 2

    def traced(f):
        return f

    class Base:
        def value(self):
            return 1

    class Child(Base):
        pass
    """
    write(tmp_path, shards=shards, parts=parts)
    base = reached_code("pkg.shards:shard", root=tmp_path, package="pkg")
    assert set(base.objects) == {"shard", "SCALE", "traced", "Base", "Child"}
    for old, new in (("SCALE = 2", "SCALE = 3"), ("return f", "return None"), ("return 1", "return 2")):
        write(tmp_path, shards=shards, parts=parts.replace(old, new))
        assert fp(tmp_path) != base.fingerprint, old


def test_versions_count_except_for_sets_computed_elsewhere(tmp_path, base, monkeypatch):
    """A set declared gpu=True is computed on another machine with its own package versions: its
    fingerprint (with_versions=False) is the code part only, so the local versions do not make it stale."""
    code_only = fp(tmp_path, with_versions=False)
    monkeypatch.setattr(fingerprint, "package_versions", lambda: {"python": "3.99", "numpy": "9", "torch": "9"})
    assert fp(tmp_path) != base
    assert fp(tmp_path, with_versions=False) == code_only


def test_an_unknown_function_is_refused(tmp_path, base):
    with pytest.raises(LookupError, match="no such function"):
        reached_code("pkg.shards:missing", root=tmp_path, package="pkg")


def test_the_evidence_functions_of_lib_resolve():
    """Every declared shard function of the book reaches its trainer (a smoke check of the resolution)."""
    reached = reached_code("lib.geneft.evidence:phase_row")
    assert {"phase_row", "train_models", "adamw_step", "forward", "backward"} <= set(reached.objects)
    assert reached.locations["train_models"] == "lib.geneft.train:train_models"


def test_the_serialisation_leaves_out_what_a_python_version_leaves_empty():
    """Python 3.12 adds `type_params=[]` to every def: fields that are None or empty are not written,
    so a shard computed under another Python (a GPU machine's) has the fingerprint it has here."""
    import ast

    text = fingerprint._serialised(ast.parse("def f(x):\n    return x\n").body[0])
    assert text.startswith("FunctionDef(name='f', args=arguments(args=[arg(arg='x')])")
    assert not any(empty in text for empty in ("decorator_list", "type_comment", "returns", "None", "[]"))


def test_memo_by_content_computes_once_per_content_and_recovers_a_damaged_entry(tmp_path, monkeypatch):
    from lib.util import io

    monkeypatch.setenv("LIB_CACHE_DIR", str(tmp_path))
    calls = []

    def compute(value):
        return lambda: calls.append(value) or value

    assert io.memo_by_content("t", b"a", compute(1)) == 1
    assert io.memo_by_content("t", b"a", compute(2)) == 1  # the stored value, not recomputed
    assert io.memo_by_content("t", b"b", compute(3)) == 3  # other content, other key
    assert calls == [1, 3]
    (entry,) = [p for p in (tmp_path / "t").iterdir() if p.read_text() == '{"value": 1}']
    entry.write_text('{"val')  # damaged: recomputed and rewritten
    assert io.memo_by_content("t", b"a", compute(4)) == 4 and entry.read_text() == '{"value": 4}'


def test_the_source_memos_give_what_parsing_gives(tmp_path, monkeypatch):
    from lib.util import deps

    monkeypatch.setenv("LIB_CACHE_DIR", str(tmp_path))
    source = tmp_path / "m.py"
    source.write_text("import lib.a.b\nfrom ..c import d, e\ndef f():\n    from lib.x import y\n")
    expected = [[-1, "", ["lib.a.b"]], [2, "c", ["d", "e"]], [0, "lib.x", ["y"]]]
    assert sorted(deps.import_statements(source)) == sorted(expected)
    assert sorted(deps.import_statements(source)) == sorted(expected)  # from the memo
    source.write_text("import lib.z\n")
    assert deps.import_statements(source) == [[-1, "", ["lib.z"]]]


def test_segments_are_the_standard_librarys():
    """`_segment` (lines split once per source) gives `ast.get_source_segment`'s text, padded or not, for every
    statement of a module of `lib`, and for every node of sources with \\r, \\r\\n and \\f line ends."""
    import ast

    from lib.util.paths import ROOT

    sources = [(ROOT / "lib" / "sim" / "train.py").read_text()]
    sources += ["@dec\r\ndef f(x):\r\n    return (x +\r\n            1)\r\n", "x = 1\rif x:\r\f    y = (2,\r 3)"]
    for source in sources:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.stmt) or (isinstance(node, ast.expr) and len(source) < 100):
                for padded in (False, True):
                    assert fingerprint._segment(source, node, padded) == ast.get_source_segment(
                        source, node, padded=padded
                    )
