"""Objects named "module:qualname": how evidence sets, stored results and background checks name their functions."""

from __future__ import annotations

import importlib
from typing import Any


def resolve(name: str) -> Any:
    """The object named "module:qualname" (a dotted qualname reaches a class's attribute), imported now."""
    module, _, qualname = name.partition(":")
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj
