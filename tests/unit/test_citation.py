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
