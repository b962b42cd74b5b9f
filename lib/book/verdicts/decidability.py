"""Whether a claim can be decided at all: its test, at its n, can reach "holds" and "does not hold" (issue 32).

A claim over seeds or evidence is judged by the estimate its metric records: a value, an interval from
`n` units and the method that made it (`lib.util.stats.Estimate`). Some designs cannot reach one of the two
verdicts whatever their data: a Wilson interval of a fraction at n = 5 cannot lie wholly above 0.9, an
exact test at n = 5 cannot reach 5 %, an interval widened to the metric's whole range (`lib.util.stats.undecided`)
excludes nothing. `reachable` says which verdicts the recorded test can reach at the recorded n:

- a fraction (`lib.util.stats.fraction`, Wilson or Clopper-Pearson): every count k = 0 .. n is tried;
- an estimate made to be inconclusive (method "undecided: ..."): inconclusive only, whatever its data,
  except while its evidence is still computing (`pending`): a claim registered before its evidence is
  judged once the set is complete, by the test its declaration fixes, and is not undecidable by design;
  and except where these data gave no finite interval (`unbounded`): an outcome, not the design, which
  the claim's note explains;
- a p-value (method "p-value ..., smallest p P"): the condition on the smallest p the test can give and
  on 1, its largest;
- any other interval (bootstrap, Student's t, a fitted line): its ends move freely with the data, both
  verdicts are reachable unless the claim's condition lies outside the metric's declared range.

A claim that cannot fail is a consistency check (`basis="consistency"`), one that cannot pass is removed
or restated; tests/book/test_decidability.py checks every declared claim against its recorded metric.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from lib.book.chapters.declaration import FAILS, HOLDS, INCONCLUSIVE, Claim, is_estimate
from lib.book.verdicts.claims import not_judged
from lib.util.stats import P_VALUE

_FRACTION = re.compile(r"^(wilson|beta) (\d+)%$")
_P_VALUE = re.compile(rf"^{P_VALUE}\b.*smallest p (?P<p>[0-9.eE+-]+)")


def fraction_verdicts(claim: Claim, n: int, method: str, parameters: Mapping[str, Any] | None = None) -> set[str]:
    """The verdicts a claim on a fraction of `n` can reach: its condition on the interval of every count."""
    from lib.util.stats import every_fraction

    match = _FRACTION.match(method)
    name, confidence = match.group(1), int(match.group(2)) / 100
    return {
        claim.evaluate(estimate.as_dict(), parameters)[0]
        for estimate in every_fraction(n, method=name, confidence=confidence)
    }


def reachable(claim: Claim, value: Any, parameters: Mapping[str, Any] | None = None) -> set[str]:
    """The verdicts `claim` can reach with the test its recorded `value` used, at the same n (see the module)."""
    if not is_estimate(value):
        return {HOLDS, FAILS}  # a point value of one run is two-valued
    method, n = str(value.get("method", "")), int(value.get("n") or 0)
    if not_judged(value) is not None:
        return {INCONCLUSIVE}
    if _FRACTION.match(method) and n > 0:
        return fraction_verdicts(claim, n, method, parameters)
    match = _P_VALUE.match(method)
    if match:
        ends = (float(match.group("p")), 1.0)
        return {claim.evaluate({**value, "value": p, "low": p, "high": p}, parameters)[0] for p in ends}
    return {HOLDS, FAILS}


PENDING = re.compile(r"\b(incomplete|not computed yet|registered)\b")


def pending(value: Any) -> bool:
    """An estimate not judged because its evidence set is still computing (a registered claim before its data)."""
    reason = not_judged(value)
    return reason is not None and PENDING.search(reason) is not None


def unbounded(value: Any) -> bool:
    """An estimate left undecided because these data gave no finite interval (`lib.util.stats.decide`, for
    example a phase boundary that no run fits): its test reaches both verdicts on other data, so the claim is
    decidable by design; this outcome decided nothing, which the claim's note must explain."""
    from lib.util.stats import UNBOUNDED

    return not_judged(value) == UNBOUNDED


def decidable(claim: Claim, value: Any, parameters: Mapping[str, Any] | None = None) -> str:
    """ "" when the claim's test can reach both verdicts (or its evidence is still computing: `pending`; or these
    data did not bound it: `unbounded`, explained in the claim's note), else why not ("cannot reach holds at
    n = 5: ...")."""
    if pending(value) or (unbounded(value) and claim.note.strip()):
        return ""
    found = reachable(claim, value, parameters)
    missing = [v for v in (HOLDS, FAILS) if v not in found]
    if not missing:
        return ""
    n = value.get("n") if is_estimate(value) else None
    method = value.get("method") if is_estimate(value) else "a point value"
    return f"{claim.id} cannot reach {' or '.join(missing)} at n = {n} ({method})"
