"""Make conventions: `make help` lists the targets, `make -n` changes nothing, the environment has a kernelspec."""

import re
import shutil
import subprocess

import pytest

from lib.util.paths import ROOT

MAKEFILE = (ROOT / "Makefile").read_text()

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs GNU make")


@pytest.fixture
def fresh_clone(tmp_path):
    """The files make reads, as in a fresh clone: no .venv, no _build."""
    for name in ("Makefile", "_toc.yml", "requirements.txt", "pyproject.toml", "_config.yml", "CITATION.cff"):
        shutil.copy(ROOT / name, tmp_path / name)
    for folder in ("lib", "notebooks", "book"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__", "chapters"))
    return tmp_path


def test_help_lists_every_target_with_one_line(fresh_clone):
    done = subprocess.run(["make", "help"], cwd=fresh_clone, capture_output=True, text=True)
    assert done.returncode == 0 and "bare 'make' is 'make book'" in done.stdout
    targets = re.findall(r"^\.PHONY:(.*)$", MAKEFILE, re.M)
    for target in {t for line in targets for t in line.split()}:
        assert re.search(rf"^  {re.escape(target)} +\S", done.stdout, re.M), target
    assert not (fresh_clone / ".venv").exists()


@pytest.mark.parametrize("goal", [[], ["book"], ["test"], ["refs"]])
def test_dry_run_changes_nothing(fresh_clone, goal):
    before = sorted(p.relative_to(fresh_clone) for p in fresh_clone.rglob("*"))
    done = subprocess.run(["make", "-n", *goal], cwd=fresh_clone, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert sorted(p.relative_to(fresh_clone) for p in fresh_clone.rglob("*")) == before


def test_the_environment_step_installs_a_kernelspec_for_its_python():
    recipe = MAKEFILE[MAKEFILE.index("$(ENV_STAMP): ") :].split("\n\n")[0]
    assert "$(PY) -m ipykernel install --sys-prefix" in recipe
    assert "ipython_kernel_config.py" in recipe  # kernels start quietly, under plain papermill too


def test_jupytext_finds_a_kernel_for_this_python():
    from jupytext.kernels import kernelspec_from_language

    spec = kernelspec_from_language("python")  # what `jupytext --set-kernel -` uses
    assert spec["language"] == "python", "run `python -m ipykernel install --sys-prefix` (make does)"


def test_make_test_runs_the_chapters_first_and_the_unit_tests_after_the_checked_outputs(fresh_clone):
    def commands(*goal: str) -> list[str]:
        done = subprocess.run(["make", "-n", *goal], cwd=fresh_clone, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    lines = commands("test")
    chapters = [i for i, line in enumerate(lines) if "-m lib run " in line]
    checked = [i for i, line in enumerate(lines) if "--nbval-lax" in line]
    unit = [i for i, line in enumerate(lines) if "pytest tests/unit" in line]
    assert len(chapters) == len(re.findall(r"^ *- file: book/chapters/", (ROOT / "_toc.yml").read_text(), re.M))
    assert len(checked) == 2 and len(unit) == 1
    assert max(chapters) < min(checked) and unit[0] > checked[0]
    # the schedule is make test's: each part alone starts at once
    assert not any("-m lib run " in line for line in commands("test-nbval", "test-nbval-generic"))
    assert not any("--nbval-lax" in line for line in commands("test-unit"))


def test_the_second_checked_output_pass_takes_every_librarys_generic_kernels(fresh_clone):
    done = subprocess.run(["make", "-n", "test-nbval-generic"], cwd=fresh_clone, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stdout.splitlines() if "ATEN_CPU_CAPABILITY" in line]
    # torch's own kernels, MKL's matrix products, oneDNN's convolutions and numpy's OpenBLAS each change the floats
    generic = ("ATEN_CPU_CAPABILITY=default", "MKL_CBWR=COMPATIBLE", "ONEDNN_MAX_CPU_ISA=SSE41", "OPENBLAS_CORETYPE=")
    for setting in (*generic, "LIB_THREADS=2"):
        assert setting in line


def test_the_html_builders_warm_imports_name_every_extension_of_the_config():
    """The pages' recipe compiles the HTML builder's modules on the other core (`HTML_EXTENSIONS`): an extension
    added to _config.yml and missing there would be compiled by the HTML build itself, alone on one core."""
    import yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    listed = re.search(r"^HTML_EXTENSIONS := (.*?)\n(?!  )", MAKEFILE, re.M | re.S).group(1)
    names = {name.strip() for name in listed.replace("\\\n", " ").split(",")}
    assert set(config["sphinx"]["extra_extensions"]) <= names
    assert "$(PY) -c '$(WARM_HTML_IMPORTS)' & warm=$$!; $(PY) -m lib pages" in MAKEFILE
