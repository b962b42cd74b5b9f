"""requirements.txt (pip) and environment.yml (conda) pin the same versions."""

import yaml

from lib.util.paths import ROOT


def _requirements() -> set[str]:
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    return {line.strip().lower() for line in lines if line.strip() and not line.startswith("#")}


def test_environment_yml_matches_requirements():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert {p.lower() for p in pip} == _requirements()
    assert "python=3.11" in env["dependencies"]


def test_every_pin_is_exact():
    for req in _requirements():
        assert "==" in req and not any(op in req for op in (">", "<", "~", "*")), req
    assert "torch==2.13.0" in _requirements()
