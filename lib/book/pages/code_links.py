"""Figure → code → evidence: which `lib` functions compute a chapter's metric, and which evidence sets it reads.

Derived mechanically from the notebook's source (`notebooks/ID.py`, parsed with `ast`, never run):
the call `run.metric(NAME, VALUE)` that records a metric, the `lib` functions called in VALUE and,
following the names VALUE uses back to the assignments that bind them (a `for` binds its target
to its iterable), the functions and `run.evidence(SET)` calls behind those. A metric recorded inside
a loop over a literal table (`for tag, name in (("a", "set_a"), ...)`) under a name built from the
loop's names (`f"spread_{tag}"`) is read for the one row its name picks: `EV[name]` is then that
row's evidence set only. A called name resolves through the notebook's imports
(`from lib.sim import metrics as M`: `M.turn_back` is `lib.sim.metrics.turn_back`). The science
packages' functions come first, then the other `lib` functions; the book machinery (`lib.book.run.notebook`,
`lib.book.evidence`, ...) is never named. Where a metric's name is computed beyond what a pattern can
say, or no `lib` function is behind it, `DECLARED` names the function (a unit test keeps every
claim of the scorecard linked).

The scorecard (lib.book.pages.generated) links each claim to its functions on the generated page "Code behind the
results" (`book/generated/code.md`: one `autofunction` per function named by a scorecard row or a
figure caption's `{py:func}` role, with the source rendered by `sphinx.ext.viewcode`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from lib.util.paths import NOTEBOOKS, ROOT

SCIENCE = ("lib.sim.", "lib.theory.", "lib.geneft.", "lib.diffusion.")
# lib modules that are book machinery or bookkeeping, not computation: never named as the code behind a result
MACHINERY = (
    "lib.book",
    "lib.util.fingerprint",
    "lib.util.io",
    "lib.util.numbers",
    "lib.util.paths",
    "lib.util.runtime",
    "lib.util.progress",
)
MAX_FUNCTIONS = 3  # a scorecard row names at most this many functions, the computing one first
# Attributes of an evidence set that say whether it is complete, not what it holds: no data flows through them.
_STATE_ATTRIBUTES = ("complete", "pending")
# Metrics recorded under a name the notebook computes (a loop over another function's result, or a value
# that no lib function computes), with the function that computes them: chapter -> metric -> function.
DECLARED: dict[str, dict[str, str]] = {}


@dataclass(frozen=True)
class Sources:
    """The `lib` functions (dotted names, the computing one first) and evidence sets ("chapter/set") behind a value."""

    functions: tuple[str, ...] = ()
    evidence: tuple[str, ...] = ()

    def __or__(self, other: Sources) -> Sources:
        return Sources(
            tuple(dict.fromkeys(self.functions + other.functions)), tuple(dict.fromkeys(self.evidence + other.evidence))
        )


# ---- resolving a dotted name to a lib function, statically -------------------------------------------


def _module_file(module: str) -> Path | None:
    base = ROOT.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@lru_cache(maxsize=None)
def _module_names(module: str) -> tuple[frozenset[str], dict[str, str]]:
    """A module's top-level function names and the names it imports from `lib` (name -> dotted origin)."""
    path = _module_file(module)
    if path is None:
        return frozenset(), {}
    tree = ast.parse(path.read_text())
    functions = frozenset(n.name for n in tree.body if isinstance(n, ast.FunctionDef))
    imported = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            origin = node.module if node.level == 0 else _relative(module, node.module, node.level, path)
            for alias in node.names:
                imported[alias.asname or alias.name] = f"{origin}.{alias.name}"
    return functions, imported


def _relative(module: str, name: str, level: int, path: Path) -> str:
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    return ".".join(package[: len(package) - level + 1] + [name])


@lru_cache(maxsize=None)
def lib_function(dotted: str) -> str | None:
    """The dotted name of the `lib` function `dotted` names (following re-exports), or None when it is not one."""
    if not dotted.startswith("lib.") or _module_file(dotted) is not None:
        return None
    module, _, name = dotted.rpartition(".")
    if _module_file(module) is None:
        return None
    functions, imported = _module_names(module)
    if name in functions:
        return dotted
    if name in imported:
        return lib_function(imported[name])
    return None


def _rank(function: str) -> int:
    return 0 if function.startswith(SCIENCE) else 1


def is_named(function: str) -> bool:
    """Whether a function may stand as the code behind a result (not book machinery)."""
    return not any(function == m or function.startswith(m + ".") for m in MACHINERY)


# ---- the notebook's data flow -----------------------------------------------------------------------


@dataclass(frozen=True)
class _Table:
    """A `for` loop over literal rows: `for tag, name in (("a", "set_a"), ("b", "set_b"))`."""

    names: tuple[str, ...]
    rows: tuple[tuple, ...]

    def row_values(self, name: str, value: object) -> dict[str, object]:
        """The loop's names bound to the one row whose `name` is `value`; {} when none or several are."""
        if name not in self.names:
            return {}
        rows = [row for row in self.rows if row[self.names.index(name)] == value]
        return dict(zip(self.names, rows[0])) if len(rows) == 1 else {}


def _literal_table(target: ast.AST, iterable: ast.AST) -> _Table | None:
    """The table a `for` over literal constants (or tuples of them) iterates, or None."""
    if isinstance(target, ast.Name):
        names = (target.id,)
    elif isinstance(target, ast.Tuple) and all(isinstance(t, ast.Name) for t in target.elts):
        names = tuple(t.id for t in target.elts)
    else:
        return None
    if not isinstance(iterable, (ast.Tuple, ast.List)):
        return None
    try:
        rows = tuple(ast.literal_eval(e) for e in iterable.elts)
    except ValueError:
        return None
    rows = tuple(row if len(names) > 1 else (row,) for row in rows)
    if not all(isinstance(row, tuple) and len(row) == len(names) for row in rows):
        return None
    return _Table(names, rows)


@dataclass(frozen=True)
class _Binding:
    line: int
    name: str
    value: ast.AST
    plain: bool  # binds the name anew (x = ..., for x in ...); else updates it (x[k] = ..., x.append(...))


def _comprehension_names(expr: ast.AST) -> set[str]:
    """Names bound by the comprehensions inside an expression (local to them, not the notebook's)."""
    targets = [c.target for c in ast.walk(expr) if isinstance(c, ast.comprehension)]
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _root(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Subscript, ast.Attribute, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _bind(target: ast.AST, value: ast.AST, line: int, unpack: bool = True) -> list[_Binding]:
    """The bindings of an assignment `target = value`; `unpack` False for a `for` target, whose every
    name is bound to the whole iterable (never element by element)."""
    if isinstance(target, ast.Name):
        return [_Binding(line, target.id, value, True)]
    if isinstance(target, (ast.Tuple, ast.List)):
        pairs = (
            zip(target.elts, value.elts)
            if unpack and isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts)
            else ((t, value) for t in target.elts)
        )
        return [b for t, v in pairs for b in _bind(t, v, line, unpack)]
    root = _root(target)
    return [_Binding(line, root, value, False)] if root else []


_MUTATORS = ("append", "extend", "update", "add", "insert", "setdefault")


class _Notebook:
    """A chapter notebook's imports, bindings and `run.metric` calls."""

    def __init__(self, chapter_id: str, source: str | None = None):
        self.chapter = chapter_id
        text = source if source is not None else (NOTEBOOKS / f"{chapter_id}.py").read_text()
        # IPython magics and shell lines are not Python: blanked, so that line numbers stay those of the file
        tree = ast.parse("\n".join("" if ln.lstrip().startswith(("%", "!")) else ln for ln in text.splitlines()))
        self.imports: dict[str, str] = {}
        self.bindings: list[_Binding] = []
        self.metrics: list[tuple[ast.AST, ast.AST]] = []  # (name expression, value)
        self.tables: dict[int, _Table] = {}  # id of a `for` loop's iterable -> its literal table
        self._found: dict[tuple[int, str], Sources] = {}  # `sources` of (id of an expression of `tree`, row)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    self.imports[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    top = alias.name.split(".")[0]
                    self.imports[alias.asname or top] = alias.name if alias.asname else top
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    self.bindings += _bind(target, node.value, node.lineno)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                self.bindings += _bind(node.target, node.value, node.lineno)
            elif isinstance(node, ast.AugAssign) and _root(node.target):
                self.bindings.append(_Binding(node.lineno, _root(node.target), node.value, False))
            elif isinstance(node, ast.For):
                self.bindings += _bind(node.target, node.iter, node.lineno, unpack=False)
                table = _literal_table(node.target, node.iter)
                if table is not None:
                    self.tables[id(node.iter)] = table
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                self.bindings += _bind(node.optional_vars, node.context_expr, getattr(node.context_expr, "lineno", 0))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                owner = node.func.value
                if isinstance(owner, ast.Name) and owner.id == "run" and node.func.attr == "metric":
                    if len(node.args) == 2:
                        self.metrics.append(tuple(node.args))
                elif node.func.attr in _MUTATORS and _root(owner):
                    value = ast.copy_location(ast.Tuple(elts=list(node.args), ctx=ast.Load()), node)
                    self.bindings.append(_Binding(node.lineno, _root(owner), value, False))
        self.bindings.sort(key=lambda b: b.line)

    def loop_values(self) -> dict[str, tuple[str, ...]]:
        """The values of each name that only `for` loops over literal tables of strings bind: a metric's
        name built from such names can be read back into them."""
        values: dict[str, list] = {}
        for table in self.tables.values():
            for i, name in enumerate(table.names):
                values.setdefault(name, []).extend(row[i] for row in table.rows)
        return {
            name: tuple(dict.fromkeys(v))
            for name, v in values.items()
            if all(isinstance(x, str) for x in v)
            and all(id(b.value) in self.tables for b in self.bindings if b.name == name)
        }

    def bound_row(self, values: dict[str, str], line: int) -> dict[str, object]:
        """`values` (names read from a metric's name at `line`) with the other names of the row each
        picks in the loop that binds it there."""
        bound = dict(values)
        for name, value in values.items():
            loop = self.definitions(name, line)
            if loop and id(loop[0]) in self.tables:
                bound.update(self.tables[id(loop[0])].row_values(name, value))
        return bound

    def resolve(self, node: ast.AST) -> str | None:
        """The dotted name an expression `a.b.c` stands for through the imports, or None."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.imports:
            return None
        return ".".join([self.imports[node.id], *reversed(parts)])

    def definitions(self, name: str, line: int) -> list[ast.AST]:
        """The values bound to `name` before `line`: its last plain binding and the updates after it."""
        found = []
        for binding in reversed([b for b in self.bindings if b.name == name and b.line < line]):
            found.append(binding.value)
            if binding.plain:
                break
        return found

    def sources(self, value: ast.AST, bound: dict[str, object] | None = None) -> Sources:
        """The lib functions (science first, then in the order met: the outermost call first) and
        evidence sets behind an expression; `bound`: loop names known to hold one row's values. Once per
        expression and row: the scorecard and the code page ask again for the calls every metric shares."""
        key = (id(value), repr(sorted((bound or {}).items())))
        if key not in self._found:
            found = self._sources(value, set(), {}, bound or {})
            self._found[key] = Sources(tuple(sorted(found.functions, key=_rank)), found.evidence)
        return self._found[key]

    def _sources(self, expr: ast.AST, active: set[int], memo: dict[int, Sources], bound: dict[str, object]) -> Sources:
        """`active`: the expressions being expanded (a loop-carried name refers back to them); `memo`: done."""
        if id(expr) in memo:
            return memo[id(expr)]
        if id(expr) in active:
            return Sources()
        active.add(id(expr))
        line = getattr(expr, "lineno", 10**9)
        local = _comprehension_names(expr)
        state = set()  # names used only to ask whether an evidence set is complete
        keyed = {}  # names subscripted with a string: EV["phase_grid"] reads that set only
        for node in ast.walk(expr):
            if isinstance(node, ast.Attribute) and node.attr in _STATE_ATTRIBUTES and isinstance(node.value, ast.Name):
                state.add(id(node.value))
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
                key = node.slice
                if isinstance(key, ast.Name) and isinstance(bound.get(key.id), str):
                    keyed[id(node.value)] = f"{self.chapter}/{bound[key.id]}"
                elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                    keyed[id(node.value)] = f"{self.chapter}/{key.value}"
        functions, evidence, later = [], [], []
        for node in ast.walk(expr):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                owner = node.func.value
                if isinstance(owner, ast.Name) and owner.id == "run" and node.func.attr == "evidence" and node.args:
                    evidence += self._evidence_names(node.args[0], line, bound)
            if isinstance(node, (ast.Name, ast.Attribute)):
                dotted = self.resolve(node)
                function = lib_function(dotted) if dotted else None
                if function and is_named(function):
                    functions.append(function)
            if isinstance(node, ast.Name) and node.id not in local and id(node) not in state:
                if node.id not in self.imports and node.id not in ("run", "P"):
                    found = Sources()
                    for definition in self.definitions(node.id, line):
                        found = found | self._sources(definition, active, memo, bound)
                    if id(node) in keyed and keyed[id(node)] in found.evidence:
                        found = Sources(found.functions, (keyed[id(node)],))
                    later.append(found)
        out = Sources(tuple(functions), tuple(evidence))
        for found in later:
            out = out | found
        active.discard(id(expr))
        memo[id(expr)] = out
        return out

    def _evidence_names(self, arg: ast.AST, line: int, bound: dict[str, object]) -> list[str]:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return [f"{self.chapter}/{arg.value}"]
        if isinstance(arg, ast.Name) and isinstance(bound.get(arg.id), str):
            return [f"{self.chapter}/{bound[arg.id]}"] if _is_evidence_set(self.chapter, bound[arg.id]) else []
        if isinstance(arg, ast.Name):
            names = [
                n.value
                for d in self.definitions(arg.id, line)
                for n in ast.walk(d)
                if isinstance(n, ast.Constant) and isinstance(n.value, str)
            ]
            return [f"{self.chapter}/{n}" for n in names if _is_evidence_set(self.chapter, n)]
        return []


def _is_evidence_set(chapter: str, name: str) -> bool:
    from lib.book.evidence.registry import all_sets

    return any(s.chapter == chapter and s.name == name for s in all_sets())


def name_pattern(node: ast.AST, loop_values: dict[str, tuple[str, ...]] | None = None) -> tuple[re.Pattern, int]:
    """A regular expression for the metric names a name expression can produce, and how many literal
    characters it fixes (the more, the more specific): f"{x}_turn_back" -> ".*_turn_back", 10.
    A plain `{name}` whose values `loop_values` lists becomes a named group of those values, so that a
    match says which row of its loop recorded the metric."""
    loop_values = loop_values or {}
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return re.compile(re.escape(node.value)), len(node.value)
    if isinstance(node, ast.JoinedStr):
        parts, named = [], set()
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(re.escape(v.value))
            elif _plain_name(v) in loop_values:
                name = _plain_name(v)
                values = "|".join(map(re.escape, loop_values[name]))
                parts.append(f"(?P={name})" if name in named else f"(?P<{name}>{values})")
                named.add(name)
            else:
                parts.append(".*")
        fixed = sum(len(v.value) for v in node.values if isinstance(v, ast.Constant))
        return re.compile("".join(parts)), fixed
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, a = name_pattern(node.left, loop_values)
        right, b = name_pattern(node.right, loop_values)
        return re.compile(left.pattern + right.pattern), a + b
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):  # f"...".replace(".", "_")
        inner, fixed = name_pattern(node.func.value)
        return re.compile(inner.pattern.replace("\\.", ".")), fixed
    return re.compile(".*"), 0


def _plain_name(value: ast.FormattedValue) -> str | None:
    """`x` for the field `{x}` (no conversion, no format spec), else None."""
    plain = value.conversion == -1 and value.format_spec is None and isinstance(value.value, ast.Name)
    return value.value.id if plain else None


@lru_cache(maxsize=None)
def _notebook(chapter_id: str) -> _Notebook:
    return _Notebook(chapter_id)


def _matching(calls: list[tuple[ast.AST, ast.AST]], name: str, notebook: _Notebook) -> Sources:
    """The sources of the most specific calls whose name expression can produce `name`."""
    scored = []
    loop_values = notebook.loop_values()
    for name_expr, value in calls:
        pattern, fixed = name_pattern(name_expr, loop_values)
        match = pattern.fullmatch(name)
        if match:
            scored.append((fixed, value, notebook.bound_row(match.groupdict(), name_expr.lineno)))
    best = max((fixed for fixed, _, _ in scored), default=None)
    out = Sources()
    for fixed, value, bound in scored:
        if fixed == best:
            out = out | notebook.sources(value, bound)
    return out


def metric_sources(chapter_id: str, metric: str, notebook: _Notebook | None = None) -> Sources:
    """The lib functions (at most MAX_FUNCTIONS, the computing one first) and evidence sets behind a metric."""
    notebook = notebook or _notebook(chapter_id)
    found = _matching(notebook.metrics, metric, notebook)
    declared = DECLARED.get(chapter_id, {}).get(metric)
    functions = ((declared,) if declared else ()) + found.functions
    return Sources(tuple(dict.fromkeys(functions))[:MAX_FUNCTIONS], found.evidence)


# ---- what the notebooks' captions name -------------------------------------------------------------

_FIGURE = re.compile(r"^# ```\{glue:figure\} (\S+)\n((?:# .*\n|#\n)*?)# ```$", re.MULTILINE)
_PY_FUNC = re.compile(r"\{py:func\}`~?([\w.]+)`")
_NAME = re.compile(r":name: (\S+)")


@dataclass(frozen=True)
class Caption:
    """A `{glue:figure}` block of a chapter notebook: the glued name and the caption text."""

    chapter: str
    name: str
    text: str

    @property
    def functions(self) -> list[str]:
        """The functions its `{py:func}` roles name."""
        return _PY_FUNC.findall(self.text)

    @property
    def label(self) -> str | None:
        """The figure's label (its `:name:` option), for {numref}."""
        match = _NAME.search(self.text)
        return match.group(1) if match else None


def figure_captions(chapter_id: str, source: str | None = None) -> list[Caption]:
    """Every `{glue:figure}` block of `notebooks/ID.py`, with its caption and options on one line
    (the comment marks removed)."""
    text = source if source is not None else (NOTEBOOKS / f"{chapter_id}.py").read_text()
    return [
        Caption(chapter_id, m.group(1), " ".join(line[2:] for line in m.group(2).splitlines() if line[2:]))
        for m in _FIGURE.finditer(text)
    ]
