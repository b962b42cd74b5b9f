"""The toc, the notebooks and the declarations name the same chapters."""
from lib.chapter import NOTEBOOKS, ROOT
from lib.specs import chapter_ids, load

CONTRACT_IDS = {"sim_observations", "one_layer", "two_layer", "diffusion", "geneft_statics", "geneft_dynamics"}


def test_every_chapter_has_notebook_and_declaration():
    ids = chapter_ids()
    assert set(ids) == CONTRACT_IDS
    assert {p.stem for p in NOTEBOOKS.glob("*.py")} == set(ids)
    assert {p.stem for p in (ROOT / "lib" / "specs").glob("*.py")} - {"__init__"} == set(ids)


def test_claims_cite_catalogue_ids():
    catalogue = (ROOT.parent / "shared" / "papers" / "README.md")
    text = catalogue.read_text() if catalogue.exists() else None
    for chapter_id in chapter_ids():
        for claim in load(chapter_id).claims:
            assert claim.id[:2] in ("S-", "G-"), claim.id
            if text is not None:
                assert claim.id.split("/")[0] in text, f"{claim.id} is not a catalogue id"
