"""The toc, the notebooks and the declarations name the same chapters."""

import re

from lib.book.chapters import chapter_ids, load
from lib.util.paths import NOTEBOOKS, ROOT

CONTRACT_IDS = {"sim_observations", "one_layer", "two_layer", "diffusion", "geneft_statics", "geneft_dynamics"}


def test_every_chapter_has_notebook_and_declaration():
    ids = chapter_ids()
    assert set(ids) == CONTRACT_IDS
    assert {p.stem for p in NOTEBOOKS.glob("*.py")} == set(ids)
    not_chapters = {"__init__", "declaration", "dependencies"}  # the vocabulary and a chapter's files
    assert {p.stem for p in (ROOT / "lib" / "book" / "chapters").glob("*.py")} - not_chapters == set(ids)


def _catalogue_ids(text: str) -> set[str]:
    ids = set()
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 2 and cells[1][:2] in ("S-", "G-"):
            first = cells[1]
            ids |= {i.strip() for i in first.split(",")}
            if ".." in first:  # "G-1..5" and "S-11..S-16" ranges
                prefix, last = first.split("..")
                stem = prefix.rstrip("0123456789")
                lo, hi = int(prefix[len(stem) :]), int(last.lstrip("SG-"))
                ids |= {f"{stem}{k}" for k in range(lo, hi + 1)}
    return ids


def test_claims_cite_catalogue_ids():
    """A claim id is a catalogue id (or several, comma-separated), optionally refined: `S-7/order`, `S-9.b`, `S-6a`, `S-6 (read-out)`."""
    ids = _catalogue_ids((ROOT / "book" / "catalogue.md").read_text())
    for chapter_id in chapter_ids():
        for claim in load(chapter_id).claims:
            for part in claim.id.split(","):
                base = re.sub(r"\.[a-z]+$", "", part.strip().split("/")[0].split(" (")[0])
                assert base in ids or base[:-1] in ids, f"{claim.id} is not a catalogue id"


def test_claim_ids_unique_across_the_book():
    ids = [claim.id for c in chapter_ids() for claim in load(c).claims]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})


def test_validation_does_not_wait_on_torch():
    """`python -m lib run` refuses bad input in about a second: declarations do not import torch."""
    import subprocess
    import sys

    code = (
        "import sys; from lib.book.chapters import chapter_ids, load\n"
        "for c in chapter_ids(): load(c).validate({})\n"
        "print('torch' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False", "a declaration imports torch (move the import into a function)"


def test_cost_counts_the_repons_held_explicitly():
    """geneft_dynamics holds eq. (13)'s N + 1 repons as arrays: a cluster of 1e12 cannot fit in memory."""
    chapter = load("geneft_dynamics")
    assert chapter.validate({"n_cluster": [1, 10**12]}).cost().gigabytes > 1e4
    assert chapter.validate({}).cost().gigabytes < 4
