"""lib/util/io.py: atomic writes leave either the old or the new file, never a partial one."""

import json

import pytest

from lib.util.io import atomic_save, atomic_write_json


def test_atomic_write_json_roundtrip(tmp_path):
    path = tmp_path / "sub" / "m.json"
    atomic_write_json(path, {"a": 1})
    assert json.loads(path.read_text()) == {"a": 1}
    assert [p.name for p in path.parent.iterdir()] == ["m.json"]


def test_failed_write_keeps_old_file(tmp_path):
    path = tmp_path / "m.json"
    atomic_write_json(path, {"a": 1})
    with pytest.raises(TypeError):
        atomic_write_json(path, {"a": object()})
    assert json.loads(path.read_text()) == {"a": 1}

    def broken(tmp):
        open(tmp, "w").write("half")
        raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError):
        atomic_save(path, broken)
    assert json.loads(path.read_text()) == {"a": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["m.json"]


def test_a_process_that_ended_is_not_alive_before_its_parent_reaps_it():
    import subprocess
    import sys
    import time

    from lib.util.io import process_alive

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert process_alive(child.pid)
        child.kill()
        time.sleep(0.5)  # ended; a zombie until `wait` reaps it
        assert not process_alive(child.pid)
    finally:
        child.kill()
        child.wait()
    assert not process_alive(child.pid)
