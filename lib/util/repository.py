"""The book's identity: its version (pyproject.toml), build date and repository (`_config.yml`).

The repository URL is set once, as `repository.url` in `_config.yml` (with `repository.branch`); the
repository button, the commit links of the build status page and the source links of the appendix
"Code behind the results" all read it from there. Left unset (a clone read offline, a fork not yet
published), the book builds the same and a commit is plain text: no link points at a placeholder.
"""

from __future__ import annotations

import datetime
import os
import re
import tomllib
from functools import lru_cache
from pathlib import Path

import yaml

from lib.util.paths import ROOT

CONFIG = ROOT / "_config.yml"
PYPROJECT = ROOT / "pyproject.toml"


def version(pyproject: Path = PYPROJECT) -> str:
    """The book's version: pyproject.toml's `project.version` (CITATION.cff states the same)."""
    return tomllib.loads(pyproject.read_text())["project"]["version"]


def build_date() -> str:
    """Today's date in UTC (ISO), or that of SOURCE_DATE_EPOCH when set (a reproducible build)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = datetime.datetime.fromtimestamp(int(epoch), datetime.UTC) if epoch else datetime.datetime.now(datetime.UTC)
    return moment.date().isoformat()


def repository(config: Path = CONFIG) -> tuple[str, str] | None:
    """(URL without a trailing slash, branch) of `_config.yml`'s `repository`, or None when no URL is set."""
    return _repository_in(config.read_text())


@lru_cache(maxsize=8)
def _repository_in(text: str) -> tuple[str, str] | None:
    """`repository` of a `_config.yml` text, parsed once per text (the build status page links every commit)."""
    section = (yaml.safe_load(text) or {}).get("repository") or {}
    url = (section.get("url") or "").strip().rstrip("/")
    return (url, section.get("branch") or "main") if url else None


def commit_markdown(commit: str, config: Path = CONFIG) -> str:
    """A commit as MyST: its first 10 hex digits, linked to the repository's page of the commit when the
    repository is set, else as plain code text."""
    short = f"`{commit[:10]}`"
    repo = repository(config)
    return f"[{short}]({repo[0]}/commit/{commit})" if repo and re.fullmatch(r"[0-9a-f]{7,40}", commit) else short


def source_url(path: str, config: Path = CONFIG) -> str | None:
    """The repository's page of the file `path` (relative to the root) on its branch; None when unset."""
    repo = repository(config)
    return f"{repo[0]}/blob/{repo[1]}/{path}" if repo else None
