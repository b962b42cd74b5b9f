"""How to cite the book: the landing page's citation, read from CITATION.cff, never typed twice.

CITATION.cff (Citation File Format 1.2.0) is what GitHub's "Cite this repository" and Zenodo read; the page
gives the same record as a reader copies it: a sentence, and a BibTeX entry. The release date is that of the
version's stored release (`book/releases/VERSION.json`, `python -m lib release`); a version not yet released is
cited as such, with no date. The repository's address is `repository.url` of `_config.yml` where it is set.
(`cffconvert` writes BibTeX from a CFF file, but pins a jsonschema older than the one the book's checks use.)
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from lib.book.pages.changelog import RELEASES
from lib.util.paths import ROOT
from lib.util.repository import repository

CITATION = ROOT / "CITATION.cff"


def _authors(record: dict) -> list[str]:
    """The authors as BibTeX writes them: "Family, Given", an entity's name in braces (kept whole)."""
    names = []
    for person in record.get("authors") or []:
        if "family-names" in person:
            names.append(", ".join(p for p in (person["family-names"], person.get("given-names", "")) if p))
        else:
            names.append("{" + person["name"] + "}")
    return names


def release_date(version: str, releases: Path = RELEASES) -> str | None:
    """The date of the stored release of `version` (ISO), or None when it was not released."""
    path = releases / f"{version}.json"
    return json.loads(path.read_text())["date"] if path.is_file() else None


def bibtex(record: dict, date: str | None, url: str | None) -> str:
    """The book's BibTeX entry (`@software`, biblatex's type for a versioned work of code and text)."""
    key = re.sub(r"[^a-z0-9]+", "-", record["title"].split(":")[0].lower()).strip("-") + "-" + record["version"]
    fields = [
        ("author", " and ".join(_authors(record))),
        ("title", "{" + record["title"] + "}"),
        ("version", record["version"]),
        ("year", date[:4] if date else ""),
        ("date", date or ""),
        ("url", url or ""),
        ("note", "" if date else "not yet released"),
    ]
    lines = [f"  {name:<7} = {{{value}}}," for name, value in fields if value]
    return "@software{" + key + ",\n" + "\n".join(lines) + "\n}"


def citation_page(citation: Path = CITATION, releases: Path = RELEASES) -> str:
    """MyST for the landing page: the citation as a sentence, its BibTeX entry, and the papers to cite beside."""
    record = yaml.safe_load(citation.read_text())
    date = release_date(record["version"], releases)
    repo = repository()
    url = repo[0] if repo else None
    authors = " and ".join(
        person.get("name") or f"{person.get('given-names', '')} {person['family-names']}".strip()
        for person in record.get("authors") or []
    )
    released = f"released {date}" if date else "not yet released"
    where = f" {url}." if url else ""
    return "\n".join(
        [
            f"Cite the book as: {authors}, *{record['title']}*, version {record['version']} ({released}).{where} "
            "Please cite the two papers it reproduces beside it, {cite:t}`yang2025swingby` and "
            "{cite:t}`baek2024geneft`. The same record is the repository's `CITATION.cff`, which GitHub and "
            "Zenodo read.",
            "",
            "```bibtex",
            bibtex(record, date, url),
            "```",
            "",
        ]
    )
