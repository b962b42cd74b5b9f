"""CITATION.cff validates against the Citation File Format 1.2.0 schema (stored in tests/unit/data, so
the check needs no network), and states the version of pyproject.toml."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import jsonschema
import yaml

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = Path(__file__).parent / "data" / "citation-file-format-1.2.0.schema.json"


def _citation() -> dict:
    return yaml.safe_load((ROOT / "CITATION.cff").read_text())


def test_citation_file_is_valid_cff_1_2_0():
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker()).validate(_citation())


def test_an_invalid_citation_file_fails():
    schema = json.loads(SCHEMA.read_text())
    broken = {k: v for k, v in _citation().items() if k != "authors"}
    assert not jsonschema.Draft7Validator(schema).is_valid(broken)


def test_citation_version_is_the_package_version():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert _citation()["version"] == version


def test_licences_are_stated():
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert "CC BY 4.0" in (ROOT / "LICENSE-TEXT.md").read_text()


def test_the_landing_pages_citation_is_read_from_the_citation_file(tmp_path):
    """The sentence and the BibTeX entry state CITATION.cff's title and version, the release's date where the
    version was released, and say "not yet released" with no date where it was not."""
    from lib.book.pages.citation import bibtex, citation_page

    releases = tmp_path / "releases"
    releases.mkdir()
    record = _citation()
    unreleased = citation_page(ROOT / "CITATION.cff", releases)
    assert f"version {record['version']} (not yet released)" in unreleased and record["title"] in unreleased
    assert "note    = {not yet released}" in unreleased and "year" not in unreleased
    (releases / f"{record['version']}.json").write_text(
        json.dumps({"version": record["version"], "date": "2026-11-26"})
    )
    released = citation_page(ROOT / "CITATION.cff", releases)
    assert "(released 2026-11-26)" in released and "year    = {2026}" in released
    entry = bibtex(
        {"title": "A: b", "version": "1.0", "authors": [{"family-names": "Tanaka", "given-names": "H."}]},
        None,
        "https://example.org/book",
    )
    assert entry.startswith("@software{a-1.0,") and "author  = {Tanaka, H.}" in entry
    assert "url     = {https://example.org/book}" in entry
