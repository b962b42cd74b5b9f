"""Environment knobs: an empty value is unset, an unusable one is refused in one line naming the variable."""

import os
import subprocess
import sys

import pytest

from lib.util import runtime
from lib.util.paths import ROOT, cache_dir
from lib.util.runtime import SettingError, check_environment, current, folder_setting, threads_setting


@pytest.mark.parametrize("value", ["", " ", "\t"])
def test_empty_thread_count_is_unset(monkeypatch, value):
    monkeypatch.setenv("LIB_THREADS", value)
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert current().threads == 3


@pytest.mark.parametrize("value", ["abc", "0", "-1", "²", "1.5", "99999", "1e3"])
def test_bad_thread_count_names_the_variable(monkeypatch, value):
    monkeypatch.setenv("LIB_THREADS", value)
    with pytest.raises(SettingError, match="LIB_THREADS") as err:
        current()
    assert "\n" not in str(err.value)


def test_openmp_lists_fall_back_to_one_thread(monkeypatch):
    monkeypatch.delenv("LIB_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "4,2")
    assert current().threads == 1


def test_threads_setting_reads_a_count(monkeypatch):
    monkeypatch.setenv("X_THREADS", " 2 ")
    assert threads_setting("X_THREADS", 1) == 2


def test_empty_folders_are_unset(monkeypatch, tmp_path):
    monkeypatch.setenv("LIB_OUTPUT_DIR", "")
    monkeypatch.setenv("LIB_CACHE_DIR", "")
    check_environment()
    assert "LIB_OUTPUT_DIR" not in os.environ and "LIB_CACHE_DIR" not in os.environ
    assert cache_dir("x").parent.name == ".cache"


def test_folder_that_is_a_file_is_refused(monkeypatch, tmp_path):
    (tmp_path / "f").write_text("")
    monkeypatch.setenv("LIB_CACHE_DIR", str(tmp_path / "f"))
    with pytest.raises(SettingError, match="LIB_CACHE_DIR"):
        check_environment()
    assert folder_setting("UNSET_VARIABLE_FOR_TEST", tmp_path) == tmp_path


def test_a_cache_folder_that_cannot_be_written_is_refused_before_any_compute(monkeypatch, tmp_path):
    (tmp_path / "f").write_text("")
    monkeypatch.setenv("LIB_CACHE_DIR", str(tmp_path / "f" / "cache"))  # under a file: cannot be created
    with pytest.raises(SettingError, match="LIB_CACHE_DIR.*cannot be written"):
        check_environment()


def test_relative_folders_are_read_from_the_folder_the_command_was_started_in(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LIB_CACHE_DIR", "cache")
    monkeypatch.setenv("LIB_OUTPUT_DIR", "out")
    check_environment()
    assert cache_dir("x") == tmp_path / "cache" / "x" and os.environ["LIB_OUTPUT_DIR"] == str(tmp_path / "out")


def test_runtime_environment_carries_threads():
    env = runtime.Runtime(threads=2).environment()
    assert env["LIB_THREADS"] == "2" and env["OMP_NUM_THREADS"] == "2"


SWITCHES = [
    ("LIB_DRAFT_FIGURES", runtime.draft_figures, False),
    ("LIB_ALLOW_EXPENSIVE", runtime.allow_expensive, False),
    ("LIB_WARM_KERNELS", runtime.warm_kernels, True),
]


@pytest.mark.parametrize("variable, read, default", SWITCHES)
@pytest.mark.parametrize("value", ["1", "0", "", " 1 "])
def test_a_switch_reads_1_and_0_and_its_default_when_unset(monkeypatch, variable, read, default, value):
    monkeypatch.setenv(variable, value)
    assert read() is (default if not value.strip() else value.strip() == "1")


@pytest.mark.parametrize("variable, read, default", SWITCHES)
def test_an_unusable_switch_value_is_refused_naming_the_variable_not_read_as_unset(
    monkeypatch, variable, read, default
):
    monkeypatch.setenv(variable, "yes")
    with pytest.raises(SettingError, match=f"{variable}='yes': expected 1"):
        check_environment()


def test_apply_sets_the_threads_of_an_imported_torch(monkeypatch):
    import torch

    monkeypatch.setenv("LIB_THREADS", "3")
    before = torch.get_num_threads()
    try:
        assert runtime.apply().threads == 3 and torch.get_num_threads() == 3
    finally:
        torch.set_num_threads(before)
    assert not any(isinstance(finder, runtime.TorchThreads) for finder in sys.meta_path)


@pytest.mark.slow(5)
def test_apply_sets_the_threads_of_torch_imported_later():
    """A chapter's start does not import torch; the torch its computations import runs on the runtime's threads."""
    code = (
        "import sys\nfrom lib.util import runtime\nruntime.apply()\nassert 'torch' not in sys.modules\n"
        "import torch\nprint(torch.get_num_threads(), sum(isinstance(f, runtime.TorchThreads) for f in sys.meta_path))"
    )
    environment = {**os.environ, "LIB_THREADS": "3", "OMP_NUM_THREADS": "5", "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["3", "0"]
