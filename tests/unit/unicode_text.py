"""Hypothesis's default alphabet of text, every character but the surrogates, without its one-off table.

`st.text()` and `st.from_regex()` draw from `characters(codec="utf-8")`, whose table of the characters UTF-8
encodes Hypothesis builds once per machine by encoding all 1.1 million code points: 3 to 4 s of CPU in each
test worker of a fresh clone, which has no `.hypothesis` folder. `UNICODE`, `characters(exclude_categories=
("Cs",))`, is the same set of characters (0 to U+D7FF and U+E000 to U+10FFFF) read from the Unicode category
table, a tenth of the time. Use `text(...)` for `st.text(...)` and `st.from_regex(..., alphabet=UNICODE)`.
"""

from hypothesis import strategies as st

UNICODE = st.characters(exclude_categories=("Cs",))


def text(**kwargs) -> st.SearchStrategy[str]:
    """`st.text(**kwargs)` (sizes) over `UNICODE`."""
    return st.text(UNICODE, **kwargs)
