"""Fingerprints of the code behind a result, so that no cache or evidence outlives the code that made it.

`code_fingerprint("lib.geneft.train")` hashes the source of that module and of every `lib` module
it imports, transitively (the closure `lib.deps` computes for make), plus the versions of the
packages that compute (python, numpy, scipy, torch). Sources are compared after dropping
comments, docstrings and formatting (their `ast` dump), so an edit of prose keeps the
fingerprint and an edit of code changes it.
"""

from __future__ import annotations

import ast
import hashlib
import json
import platform
from functools import lru_cache
from importlib import metadata

from lib.deps import module_closure, module_path

COMPUTE_PACKAGES = ("numpy", "scipy", "torch")


def package_versions() -> dict[str, str]:
    """Python and the numerical packages' versions (those absent are left out)."""
    versions = {"python": platform.python_version()}
    for name in COMPUTE_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return versions


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
    return tree


@lru_cache(maxsize=None)
def module_digest(module: str) -> str:
    source = module_path(module).read_text()
    normalized = ast.dump(_strip_docstrings(ast.parse(source)), annotate_fields=False)
    return hashlib.sha256(normalized.encode()).hexdigest()


def code_modules(*modules: str) -> list[str]:
    """The named `lib` modules and every `lib` module they import, transitively, sorted."""
    return sorted(module_closure(set(modules)))


def code_fingerprint(*modules: str) -> str:
    """A short hash of the code of `modules` (dotted `lib...` names, with their import closure)
    and of the compute packages' versions. Stable across comment and docstring edits."""
    record = {
        "modules": {m: module_digest(m) for m in code_modules(*modules)},
        "versions": package_versions(),
    }
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()[:16]
