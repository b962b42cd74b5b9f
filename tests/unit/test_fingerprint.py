"""Code fingerprints change with code, not with prose."""

import textwrap

from lib import fingerprint
from lib.fingerprint import code_fingerprint, code_modules


def test_closure_contains_imports():
    assert {"lib.geneft.train", "lib.geneft.network", "lib.io"} <= set(code_modules("lib.geneft.train"))


def test_stable_and_distinct():
    assert code_fingerprint("lib.io") == code_fingerprint("lib.io")
    assert code_fingerprint("lib.io") != code_fingerprint("lib.geneft.train")


def test_docstrings_and_comments_do_not_count():
    def digest(src):
        import ast

        return ast.dump(fingerprint._strip_docstrings(ast.parse(textwrap.dedent(src))), annotate_fields=False)

    a = digest('def f(x):\n    """Doc."""\n    return x + 1  # comment\n')
    b = digest("def f(x):\n    return x + 1\n")
    c = digest("def f(x):\n    return x + 2\n")
    assert a == b != c
