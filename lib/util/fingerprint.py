"""Fingerprints of the code behind a result, so that no cache or evidence outlives the code that made it.

Two fingerprints, both of normalised source (the syntax tree without comments, docstrings and
formatting, so an edit of prose keeps them and an edit of code changes them), both with the
versions of the packages that compute (python, numpy, scipy, torch):

- `reached_code("lib.geneft.evidence:phase_row")`, for stored evidence: the shard function and the
  code it actually reaches inside `lib`: every function, class (with its methods and bases) and
  module-level constant it references, transitively, through the defining module's globals and
  imports (`from x import y`, `module.attr` through an imported module, imports inside a function,
  default arguments, decorators, base classes, dataclass fields). Each reached object is keyed by
  its name, not by its module, and every reference to it inside the others is written as that
  name: moving a function to another module, renaming a module, or adding or editing a function
  the shard never reaches keeps the fingerprint; changing anything it reaches changes it. (Two
  reached objects of the same name are told apart by their modules.) Code outside `lib` is covered
  by the package versions. Attribute access on an object whose type is not written in the code
  (`obj.method()`) is covered because the object's class is reached where the object is made.
- `code_fingerprint("lib.geneft.train")`, for chapter metrics and caches: the whole module and
  every `lib` module it imports, transitively (the closure `lib.util.deps` computes for make).

Evidence computed on another machine (sets declared `gpu=True`, run with that machine's own
package versions) is checked locally by the code part only (`with_versions=False`): the local
machine never recomputes it, so its own versions say nothing about those shards; the shard's
provenance records the versions it was computed with.
"""

from __future__ import annotations

import ast
import hashlib
import io
import platform
import re
import symtable
import textwrap
from dataclasses import dataclass, field
from functools import cache, lru_cache
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace

from lib.util.deps import module_closure, module_path
from lib.util.hashing import json_sha256
from lib.util.io import memo_by_content
from lib.util.paths import ROOT

COMPUTE_PACKAGES = ("numpy", "scipy", "torch")


def package_versions() -> dict[str, str]:
    """Python and the numerical packages' versions (those absent are left out)."""
    return dict(_installed_versions())


@cache
def _installed_versions() -> dict[str, str]:
    """`package_versions`, read once per process (each `metadata.version` scans the installed distributions)."""
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
    """SHA-256 of the module's normalised syntax tree (memoised on disk by the file's content)."""
    source = module_path(module).read_bytes()

    def digest() -> str:
        normalized = ast.dump(_strip_docstrings(ast.parse(source)), annotate_fields=False)
        return hashlib.sha256(normalized.encode()).hexdigest()

    return memo_by_content("module-digest", source, digest)


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
    return json_sha256(record, spaced=True)[:16]


# ----------------------------------------------------------------------------------------------
# The code a function reaches
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reached:
    """What a shard function computes with: `objects` {key: digest of its normalised source}, the
    fingerprint of those (and of `versions`, when they count), and where each object lives now
    (`locations` {key: "module:name"}, for messages only: it is not hashed)."""

    fingerprint: str
    objects: dict[str, str]
    versions: dict[str, str] = field(default_factory=dict)
    locations: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class _Module:
    """One parsed module: the statements binding each top-level name, its imports, its symbol table."""

    name: str
    package: str
    source: str
    definitions: dict[str, list[ast.stmt]]
    imports: dict[str, tuple[str, str | None]]  # local name -> (module, attribute or None for the module)
    scopes: dict[tuple[str, int], symtable.SymbolTable]


class _Sources:
    """The source of every module of one package (`lib` under the repository root, or a synthetic one in a
    test), read once; `digest` identifies that state of the code."""

    def __init__(self, root: Path, package: str):
        self.root, self.package = Path(root), package
        self.texts: dict[str, tuple[str, bool]] = {}
        for path in sorted((self.root / package).rglob("*.py")):
            parts = path.relative_to(self.root).with_suffix("").parts
            is_package = parts[-1] == "__init__"
            self.texts[".".join(parts[:-1] if is_package else parts)] = (path.read_text(), is_package)
        self.digest = json_sha256(sorted(self.texts.items()))

    def has(self, module: str) -> bool:
        """Whether `module` is a module of the package."""
        return module in self.texts

    def module(self, name: str) -> _Module | None:
        if name not in self.texts:
            return None
        source, is_package = self.texts[name]
        return _parse(source, name, is_package)


@lru_cache(maxsize=512)
def _parse(source: str, name: str, is_package: bool) -> _Module:
    tree = ast.parse(source)
    package = name if is_package else name.rpartition(".")[0]
    definitions: dict[str, list[ast.stmt]] = {}
    imports: dict[str, tuple[str, str | None]] = {}

    def bind(statements: list[ast.stmt]) -> None:
        for stmt in statements:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                definitions.setdefault(stmt.name, []).append(stmt)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for target in targets:
                    for node in ast.walk(target):
                        if isinstance(node, ast.Name):
                            definitions.setdefault(node.id, []).append(stmt)
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                imports.update(_import_bindings(stmt, package))
            elif isinstance(stmt, (ast.If, ast.Try, ast.With)):
                for block in ("body", "orelse", "finalbody"):
                    bind(getattr(stmt, block, []))
                for handler in getattr(stmt, "handlers", []):
                    bind(handler.body)

    bind(tree.body)
    table = symtable.symtable(source, name, "exec")
    scopes = {(child.get_name(), child.get_lineno()): child for child in table.get_children()}
    return _Module(name, package, source, definitions, imports, scopes)


def _import_bindings(stmt: ast.Import | ast.ImportFrom, package: str) -> dict[str, tuple[str, str | None]]:
    """Local name -> (module, attribute) for one import statement (relative imports resolved)."""
    if isinstance(stmt, ast.Import):
        return {
            (alias.asname or alias.name.split(".")[0]): (alias.name if alias.asname else alias.name.split(".")[0], None)
            for alias in stmt.names
        }
    if stmt.level:
        parts = package.split(".")
        base = ".".join(parts[: len(parts) - stmt.level + 1] + ([stmt.module] if stmt.module else []))
    else:
        base = stmt.module or ""
    return {(alias.asname or alias.name): (base, alias.name) for alias in stmt.names if alias.name != "*"}


@dataclass(frozen=True)
class _Target:
    """What a name refers to: a `lib` object (module, name), a `lib` module, or something outside (dotted)."""

    kind: str  # object | module | external
    module: str
    name: str = ""


class _Reach:
    """Follows the references between the objects of one state of the code, normalising each object once."""

    def __init__(self, sources: _Sources):
        self.sources = sources
        self.objects: dict[tuple[str, str], tuple[str, list[tuple[str, str]]]] = {}

    # -- resolution ----------------------------------------------------------------------------

    def attribute(self, module: str, name: str, seen: frozenset = frozenset()) -> _Target | None:
        """What `module.name` is: a definition there, what its import of `name` refers to, or a submodule."""
        parsed = self.sources.module(module)
        if parsed is None:
            return _Target("external", f"{module}.{name}")
        if name in parsed.definitions:
            return _Target("object", module, name)
        if name in parsed.imports and (module, name) not in seen:
            return self.binding(parsed.imports[name], seen | {(module, name)})
        if self.sources.has(f"{module}.{name}"):
            return _Target("module", f"{module}.{name}")
        return None

    def binding(self, imported: tuple[str, str | None], seen: frozenset = frozenset()) -> _Target | None:
        module, attribute = imported
        if attribute is None:
            return _Target("module", module) if self.sources.has(module) else _Target("external", module)
        if not self.sources.has(module):
            return _Target("external", f"{module}.{attribute}")
        return self.attribute(module, attribute, seen)

    # -- one object ----------------------------------------------------------------------------

    def closure(self, module: str, name: str) -> dict[tuple[str, str], str]:
        """The object `name` of `module` and every object it reaches: {(module, name): normalised dump}."""
        found: dict[tuple[str, str], str] = {}
        todo = [(module, name)]
        while todo:
            key = todo.pop()
            if key not in found:
                found[key], refs = self.normalised(key)
                todo += refs
        return found

    def normalised(self, key: tuple[str, str]) -> tuple[str, list[tuple[str, str]]]:
        """The dump of the statements binding object `key` and the objects they reference (cached)."""
        if key not in self.objects:
            parsed = self.sources.module(key[0])
            parts = [self._normalise(parsed, stmt) for stmt in parsed.definitions[key[1]]]
            self.objects[key] = ("\n".join(d for d, _ in parts), [r for _, refs in parts for r in refs])
        return self.objects[key]

    def _normalise(self, parsed: _Module, stmt: ast.stmt) -> tuple[str, list[tuple[str, str]]]:
        """The statement's dump with every reference to a `lib` object written as a placeholder
        of that object, references outside `lib` as their full dotted names, imports, docstrings
        and annotations of arguments and returns dropped; and the objects it references."""
        names = _global_names(parsed, stmt)
        local_imports: dict[str, tuple[str, str | None]] = {}
        for node in ast.walk(stmt):
            if node is not stmt and isinstance(node, (ast.Import, ast.ImportFrom)):
                local_imports.update(_import_bindings(node, parsed.package))
        reached: list[tuple[str, str]] = []

        def resolve(name: str) -> _Target | None:
            if name in local_imports:
                return self.binding(local_imports[name])
            if name not in names:
                return None
            if name in parsed.definitions:
                return _Target("object", parsed.name, name)
            if name in parsed.imports:
                return self.binding(parsed.imports[name])
            return None

        reach = self

        class Rewrite(ast.NodeTransformer):
            def visit_Import(self, node: ast.Import | ast.ImportFrom) -> None:
                return None  # which names an import binds is in the references

            visit_ImportFrom = visit_Import

            def visit_arg(self, node: ast.arg) -> ast.arg:
                node.annotation = None
                return node

            def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
                node.returns = None
                return self.generic_visit(node)

            visit_AsyncFunctionDef = visit_FunctionDef

            def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AnnAssign:
                # a field's annotation is kept as written, not followed
                node.target, node.value = self.visit(node.target), node.value and self.visit(node.value)
                return node

            def visit_Name(self, node: ast.Name) -> ast.expr:
                return reach._replace(node, [], resolve(node.id), reached) if isinstance(node.ctx, ast.Load) else node

            def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
                chain, base = [], node
                while isinstance(base, ast.Attribute):
                    chain.append(base)
                    base = base.value
                if isinstance(base, ast.Name) and isinstance(base.ctx, ast.Load):
                    return reach._replace(base, chain[::-1], resolve(base.id), reached)
                return self.generic_visit(node)

        tree = Rewrite().visit(_strip_docstrings(_fresh(parsed.source, stmt)))
        return _serialised(tree), reached

    def _replace(
        self, base: ast.Name, chain: list[ast.Attribute], target: _Target | None, reached: list[tuple[str, str]]
    ) -> ast.expr:
        """`base.a.b...` with its longest prefix that names a `lib` object (or an outside name) rewritten."""
        used = 0
        while target is not None and target.kind == "module" and used < len(chain):
            target = self.attribute(target.module, chain[used].attr)
            used += 1
        if target is None:
            return _rebuild(base, chain, 0)
        if target.kind == "object":
            reached.append((target.module, target.name))
            token = _placeholder(target.module, target.name)
        elif target.kind == "module":  # a module used as a value: every object in it counts
            parsed = self.sources.module(target.module)
            reached += [(target.module, name) for name in parsed.definitions]
            token = "<module " + " ".join(_placeholder(target.module, n) for n in sorted(parsed.definitions)) + ">"
        else:
            token = target.module
        return _rebuild(ast.Name(id=token, ctx=ast.Load()), chain, used)


def _serialised(node: object) -> str:
    """The syntax tree as text, the same under every Python version: unlike `ast.dump`, fields that are
    None or empty are left out (newer versions add such fields, e.g. 3.12's `type_params`), so that a
    shard computed under another Python (a GPU machine's) is fingerprinted as here."""
    if isinstance(node, ast.AST):
        fields = (
            f"{name}={_serialised(value)}"
            for name, value in ast.iter_fields(node)
            if value is not None and not (isinstance(value, list) and not value)
        )
        return f"{type(node).__name__}({', '.join(fields)})"
    if isinstance(node, list):
        return f"[{', '.join(_serialised(item) for item in node)}]"
    return repr(node)


def _fresh(source: str, stmt: ast.stmt) -> ast.stmt:
    """A new tree of `stmt`, parsed again from its source (the rewrite must not touch the cached one)."""
    fresh = ast.parse(textwrap.dedent(_source_segment(source, stmt, padded=True))).body[0]
    if decorators := getattr(stmt, "decorator_list", None):
        fresh.decorator_list = [ast.parse(_source_segment(source, d)).body[0].value for d in decorators]
    return fresh


@lru_cache(maxsize=512)
def _lines(source: str) -> list[str]:
    """The source's lines with their ends, split where `ast.get_source_segment` splits them (at \\n, \\r and
    \\r\\n only: not at a form feed or the other line breaks of `str.splitlines`)."""
    return io.StringIO(source, newline="").readlines()


def _source_segment(source: str, node: ast.AST, padded: bool = False) -> str:
    """`ast.get_source_segment(source, node, padded=padded)` from the node's own lines only: Python 3.11 splits
    the whole module, one character at a time, for every segment."""
    lines = _lines(source)[node.lineno - 1 : node.end_lineno]
    at = SimpleNamespace(
        lineno=1, end_lineno=len(lines), col_offset=node.col_offset, end_col_offset=node.end_col_offset
    )
    return ast.get_source_segment("".join(lines), at, padded=padded)


def _rebuild(base: ast.expr, chain: list[ast.Attribute], used: int) -> ast.expr:
    node = base
    for attribute in chain[used:]:
        node = ast.Attribute(value=node, attr=attribute.attr, ctx=attribute.ctx)
    return node


def _global_names(parsed: _Module, stmt: ast.stmt) -> set[str]:
    """The names `stmt` reads from its module's globals: for a function or class, the global names of
    its scopes (symtable) and every name read by its decorators, defaults and bases (evaluated in the
    module's scope); for any other statement, every name it reads."""
    if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)}
    outside: list[ast.AST] = list(stmt.decorator_list)
    if isinstance(stmt, ast.ClassDef):
        outside += stmt.bases + [k.value for k in stmt.keywords]
    else:
        outside += stmt.args.defaults + [d for d in stmt.args.kw_defaults if d is not None]
    names = {n.id for part in outside for n in ast.walk(part) if isinstance(n, ast.Name)}
    table = parsed.scopes.get((stmt.name, stmt.lineno))
    tables = [table] if table is not None else []
    while tables:
        scope = tables.pop()
        names |= {s.get_name() for s in scope.get_symbols() if s.is_global() and s.is_referenced()}
        tables += scope.get_children()
    return names


_PLACEHOLDER = re.compile(r"⟨([^⟨⟩:]*):([^⟨⟩]*)⟩")


def _placeholder(module: str, name: str) -> str:
    """Where a reference to a `lib` object stood; replaced by the object's key once all are known."""
    return f"⟨{module}:{name}⟩"


def reached_code(
    function: str, with_versions: bool = True, root: str | Path | None = None, package: str = "lib"
) -> Reached:
    """The code `function` ("module:name") reaches inside `package` (default `lib` under the repository
    root), each object keyed by its name, and its fingerprint with (or without) the package versions."""
    module, _, name = function.partition(":")
    sources = _Sources(Path(root) if root is not None else ROOT, package)
    parsed = sources.module(module)
    if parsed is None or name not in parsed.definitions:
        raise LookupError(f"{function}: no such function in {sources.root / package}")
    dumps = _reach(sources).closure(module, name)
    modules_of: dict[str, list[str]] = {}
    for mod, obj in dumps:
        modules_of.setdefault(obj, []).append(mod)
    keys = {(mod, obj): obj if len(modules_of[obj]) == 1 else f"{mod}.{obj}" for mod, obj in dumps}
    objects = {
        keys[key]: hashlib.sha256(_PLACEHOLDER.sub(lambda m: f"<{keys[m[1], m[2]]}>", dump).encode()).hexdigest()[:16]
        for key, dump in dumps.items()
    }
    versions = package_versions() if with_versions else {}
    record = {"code": objects, **({"versions": versions} if with_versions else {})}
    digest = json_sha256(record, spaced=True)[:16]
    return Reached(digest, dict(sorted(objects.items())), versions, {k: f"{m}:{o}" for (m, o), k in keys.items()})


_reaches: dict[str, _Reach] = {}


def _reach(sources: _Sources) -> _Reach:
    """One `_Reach` per state of the code (its normalised objects are shared by every function)."""
    if sources.digest not in _reaches:
        _reaches.clear()
        _reaches[sources.digest] = _Reach(sources)
    return _reaches[sources.digest]
