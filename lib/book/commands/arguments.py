"""What the command lines share in reading their arguments: a parser whose refusals are one line (exit code 2 from
the caller's `except ParameterError`) and that takes no abbreviation of a long option (`--thr` is not `--threads`),
and the reading of a whole number given as an option's text."""

from __future__ import annotations

import argparse
from typing import NoReturn

from lib.book.chapters.declaration import ParameterError, look_alike_hint, short
from lib.util.runtime import whole_number_in

MAX_ERROR = 300  # characters of argparse's message kept (it quotes what was typed, of any length)


def one_line(text: str, limit: int = MAX_ERROR) -> str:
    """`text` on one line (line breaks and other control characters written as escapes), cut to `limit` characters."""
    flat = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser (and, through `add_subparsers`, its subcommands' parsers) that refuses a bad command line
    by raising ParameterError with one line naming the problem and pointing to `-h`, instead of printing its usage
    and exiting; abbreviations of long options are refused unless `allow_abbrev=True` is asked for."""

    def __init__(self, *args, allow_abbrev: bool = False, **kwargs) -> None:
        super().__init__(*args, allow_abbrev=allow_abbrev, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise ParameterError(f"{self.prog}: {one_line(message)} (`{self.prog} -h` lists the arguments)")


def whole_number(option: str, text: str, low: int, high: int, what: str = "") -> int:
    """`text` (an option's value, `option` naming it) as an int from `low` to `high`: ASCII digits, no more of them
    than `high` has, surrounding spaces allowed (`lib.util.runtime.whole_number_in`); ParameterError
    otherwise, without converting a number of any length (no ValueError from Python's limit on an int's digits)."""
    number = whole_number_in(text, low, high)
    if number is not None:
        return number
    hint = look_alike_hint(text) if not text.isascii() else ""
    raise ParameterError(f"{option} must be a whole number from {low} to {high}{what}, got {short(text)}{hint}")
