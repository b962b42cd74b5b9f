"""The book's identity (lib.util.repository) and the changelog of its verdicts (lib.book.pages.changelog)."""

from __future__ import annotations

import json
from types import SimpleNamespace

from lib.book.pages.changelog import changelog_page, previous_release, write_snapshot
from lib.util.repository import commit_markdown, repository, source_url, version

SHA = "0123456789abcdef0123456789abcdef01234567"


def _config(tmp_path, url):
    path = tmp_path / "_config.yml"
    path.write_text(f'title: t\nrepository:\n  url: "{url}"\n  branch: trunk\n')
    return path


def test_an_unset_repository_gives_plain_commits_and_no_source_links(tmp_path):
    config = _config(tmp_path, "")
    assert repository(config) is None
    assert commit_markdown(SHA, config) == "`0123456789`"
    assert source_url("lib/util/stats.py", config) is None


def test_a_set_repository_links_commits_and_sources(tmp_path):
    config = _config(tmp_path, "https://example.org/book/")
    assert repository(config) == ("https://example.org/book", "trunk")
    assert commit_markdown(SHA, config) == f"[`0123456789`](https://example.org/book/commit/{SHA})"
    assert commit_markdown("unknown", config) == "`unknown`"
    assert source_url("lib/util/stats.py", config) == "https://example.org/book/blob/trunk/lib/util/stats.py"
    _config(tmp_path, "")  # the same file edited: read again, not the parse of its earlier text
    assert repository(config) is None and source_url("lib/util/stats.py", config) is None


def test_the_book_config_sets_no_placeholder_url():
    url = (repository() or ("",))[0]
    assert "example" not in url and "USER" not in url.upper()


def _verdict(claim_id, verdict, value, chapter="one_layer", role="primary"):
    claim = SimpleNamespace(id=claim_id, category=role)
    return SimpleNamespace(claim=claim, chapter=chapter, verdict=verdict, value=value)


def test_the_changelog_lists_every_changed_verdict_with_both_values(tmp_path, monkeypatch):
    monkeypatch.setattr("lib.book.pages.changelog.version", lambda: "0.2.0")
    old = [_verdict("S-1/a", "holds", 0.5), _verdict("S-1/b", "holds", 2.0), _verdict("S-1/gone", "holds", 1.0)]
    monkeypatch.setattr("lib.book.pages.changelog.version", lambda: "0.1.0")
    write_snapshot(old, {"S-1": "reproduced", "S-2": "reproduced"}, tmp_path)
    monkeypatch.setattr("lib.book.pages.changelog.version", lambda: "0.2.0")
    now = [_verdict("S-1/a", "holds", 0.6), _verdict("S-1/b", "inconclusive", 1.25), _verdict("S-1/new", "holds", 3)]
    page = changelog_page(now, {"S-1": "undecided at this budget", "S-2": "reproduced"}, tmp_path)
    assert "| S-1 | reproduced | undecided at this budget |" in page and "| S-2 |" not in page
    grown = changelog_page(now, {"S-1": "reproduced", "S-3": "reproduced"}, tmp_path)
    assert "No catalogue row changed status." in grown
    assert "Rows added: S-3 (reproduced)." in grown and "Rows removed: S-2 (was reproduced)." in grown
    assert "release 0.1.0" in page
    assert "| inconclusive | 1.25 |" in page and "| holds | 2 |" in page
    assert "S-1/a" not in page.split("Added")[0].split("| claim |")[1]  # same verdict: not listed as changed
    assert "1 of the 3 claims changed verdict, 1 was added and 1 withdrawn" in page
    assert "S-1/gone (was holds)" in page


def test_a_release_without_row_statuses_says_where_their_changes_are_told(tmp_path, monkeypatch):
    monkeypatch.setattr("lib.book.pages.changelog.version", lambda: "0.2.0")
    (tmp_path / "0.1.0.json").write_text(json.dumps({"version": "0.1.0", "date": "2026-01-01", "claims": {}}))
    page = changelog_page([], {"S-1": "reproduced"}, tmp_path)
    assert "Release 0.1.0 stored no row statuses" in page and "| row |" not in page


def test_the_previous_release_is_the_newest_before_this_version(tmp_path):
    for v in ("0.1.0", "0.10.0", "0.9.1"):
        (tmp_path / f"{v}.json").write_text(json.dumps({"version": v, "date": "2026-01-01", "claims": {}}))
    assert previous_release(tmp_path, "0.10.0")["version"] == "0.9.1"
    assert previous_release(tmp_path, "0.1.0")["version"] == "0.1.0"
    assert previous_release(tmp_path / "none", "0.1.0") is None


def test_version_is_pyprojects():
    assert version().count(".") == 2


def test_the_changelog_lists_the_claims_whose_role_changed(tmp_path, monkeypatch):
    monkeypatch.setattr("lib.book.pages.changelog.version", lambda: "0.1.0")
    write_snapshot([_verdict("S-1/a", "holds", 0.5), _verdict("S-1/b", "holds", 1.0)], {"S-1": "reproduced"}, tmp_path)
    monkeypatch.setattr("lib.book.pages.changelog.version", lambda: "0.2.0")
    now = [_verdict("S-1/a", "holds", 0.5, role="paper"), _verdict("S-1/b", "holds", 1.0)]
    page = changelog_page(now, {"S-1": "reproduced"}, tmp_path)
    assert (
        "Roles changed: " in page and "S-1/a</a> (then: the paper's claim; now: further statement of the paper)" in page
    )
    assert "S-1/b</a> (then" not in page
    unchanged = changelog_page([_verdict("S-1/a", "holds", 0.5), _verdict("S-1/b", "holds", 1.0)], {}, tmp_path)
    assert "Roles changed" not in unchanged and "stored no claim roles" not in unchanged


def test_a_release_without_roles_says_where_their_changes_are_told(tmp_path, monkeypatch):
    monkeypatch.setattr("lib.book.pages.changelog.version", lambda: "0.2.0")
    old = {"S-1/a": {"chapter": "one_layer", "verdict": "holds", "value": "0.5"}}
    (tmp_path / "0.1.0.json").write_text(json.dumps({"version": "0.1.0", "date": "2026-01-01", "claims": old}))
    page = changelog_page([_verdict("S-1/a", "holds", 0.5, role="paper")], {}, tmp_path)
    assert "Release 0.1.0 stored no claim roles" in page and "Roles changed" not in page
