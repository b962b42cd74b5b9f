"""Sphinx extension: resolve `{numref}` references without unpickling the target page once per reference.

Sphinx's standard domain resolves each `{numref}` by reading the whole doctree of the page the label is
on (`BuildEnvironment.get_doctree`: a fresh unpickling every time) to learn what kind of node it labels.
The book has about 140 such references, most of them into the six chapters, whose doctrees are large:
under a profiler the HTML build took 87 core-seconds with those unpicklings, 75 without (AMD EPYC). Here each page's
doctree is unpickled once per build process and shared by the references into it; the resolution reads
it and never changes it, so sharing it is safe. Everything else is Sphinx's own code.
"""

from __future__ import annotations

from sphinx.application import Sphinx
from sphinx.domains.std import StandardDomain
from sphinx.environment import BuildEnvironment

_DOCTREES: dict[str, object] = {}  # page -> its doctree, for reading only; emptied when pages are read again


class _SharedDoctrees:
    """The build environment, except that `get_doctree` gives the one shared doctree of each page."""

    def __init__(self, env: BuildEnvironment):
        self._env = env

    def __getattr__(self, name: str):
        return getattr(self._env, name)

    def get_doctree(self, docname: str):
        if docname not in _DOCTREES:
            _DOCTREES[docname] = self._env.get_doctree(docname)
        return _DOCTREES[docname]


class NumberedReferences(StandardDomain):
    """The standard domain, resolving `{numref}` against the shared doctrees."""

    def _resolve_numref_xref(self, env: BuildEnvironment, *args, **kwargs):
        return super()._resolve_numref_xref(_SharedDoctrees(env), *args, **kwargs)


def _forget(*_args) -> None:
    _DOCTREES.clear()


def setup(app: Sphinx) -> dict:
    app.add_domain(NumberedReferences, override=True)
    app.connect("env-before-read-docs", _forget)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
