"""Kernels forked from a warm template (lib/book/run/warm_kernels.py): served only where a fresh kernel would compute
the same, and in every other way a kernel as `python -m ipykernel_launcher` starts one."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from lib.book.run import warm_kernels as wk
from lib.util.io import process_alive
from lib.util.paths import ROOT
from lib.util.runtime import SettingError, check_environment

LAUNCHER = [sys.executable, "-Xfrozen_modules=off", "-m", "ipykernel_launcher", "-f", "{connection_file}"]


def test_the_key_ignores_the_books_and_the_runners_variables_and_nothing_a_library_reads_at_import():
    base = {"PATH": "/usr/bin", "OMP_NUM_THREADS": "1", "HOME": "/root"}
    key = wk.template_key(base, [sys.executable])
    volatile = {"LIB_OUTPUT_DIR": "/x", "JPY_PARENT_PID": "7", "PYTEST_CURRENT_TEST": "t", "MAKEFLAGS": "-j2"}
    assert wk.template_key({**base, **volatile}, [sys.executable]) == key
    for name, value in (("OMP_NUM_THREADS", "2"), ("ATEN_CPU_CAPABILITY", "default"), ("PYTHONPATH", "/y")):
        assert wk.template_key({**base, name: value}, [sys.executable]) != key, name
    assert wk.template_key(base, [sys.executable, "-Xfrozen_modules=off"]) != key


@pytest.mark.parametrize(
    "cmd, options",
    [
        (LAUNCHER, ["-Xfrozen_modules=off"]),
        ([sys.executable, "-m", "ipykernel_launcher", "-f", "c.json", "--debug"], []),
        (["/other/python", "-m", "ipykernel_launcher", "-f", "c.json"], None),
        ([sys.executable, "-O", "-m", "ipykernel_launcher", "-f", "c.json"], None),
        ([sys.executable, "-m", "other_kernel", "-f", "c.json"], None),
        ([sys.executable, "-m", "ipykernel_launcher"], None),
    ],
)
def test_only_ipykernels_launcher_on_this_interpreter_is_served(cmd, options):
    assert wk.launcher_options(cmd) == options


@pytest.mark.parametrize(
    "threads, fork",
    [({"OMP_NUM_THREADS": "1"}, True), ({"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "4"}, True),
     ({"OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "1"}, False), ({}, False)],
)  # fmt: skip
def test_no_template_is_started_where_openblas_would_start_threads_in_it(threads, fork):
    assert wk.imports_start_no_thread(threads) is fork


def test_a_bad_setting_is_refused_before_any_kernel(monkeypatch):
    monkeypatch.setenv("LIB_WARM_KERNELS", "yes")
    with pytest.raises(SettingError, match="LIB_WARM_KERNELS"):
        check_environment()


def test_a_template_running_threads_refuses_to_fork():
    """A fork copies only the thread that calls it: a template with a second thread (OpenBLAS's pool, say, when
    its thread count is not 1) refuses, and the kernel is started afresh."""
    stop = threading.Event()
    helper = threading.Thread(target=stop.wait)
    helper.start()
    ours, theirs = socket.socketpair()
    try:
        with open(os.devnull, "w") as null:
            socket.send_fds(
                ours, [b'{"argv": [], "environment": {}, "cwd": "/", "client_pid": 1}'], [null.fileno()] * 2
            )
        ours.shutdown(socket.SHUT_WR)
        assert wk._answer(theirs, theirs) is None
        assert b"refused" in ours.recv(4096)
    finally:
        stop.set()
        helper.join()
        ours.close()
        theirs.close()


def _start(manager_class, cwd, env):
    manager = manager_class(kernel_name="python3")
    manager.start_kernel(cwd=str(cwd), env=env)
    client = manager.client()
    client.start_channels()
    client.wait_for_ready(timeout=120)
    return manager, client


def _run(client, code):
    outputs = []
    reply = client.execute_interactive(code, timeout=60, output_hook=outputs.append)
    return reply["content"], outputs


WARM_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def test_a_forked_kernel_is_a_kernel_of_its_own_request(tmp_path, monkeypatch):
    """Forked from the template (its parent), in the request's folder and environment, with the inline backend
    that shows a figure as a fresh kernel does, its own random seeds, signals as a fresh one, and gone after
    shutdown; under LIB_WARM_KERNELS=0 no template is asked."""
    env = {**os.environ, **WARM_ENV, "LIB_MARK": "request"}
    env.pop("LIB_WARM_KERNELS", None)
    show = (
        "import os, sys, numpy as np, matplotlib.pyplot as plt\n"
        "print(os.getppid(), os.getcwd(), os.environ['LIB_MARK'], 'lib.util.runtime' in sys.modules, np.random.rand())\n"
        "plt.plot([0, 1])"
    )
    kernels = []
    try:
        for _ in range(2):
            manager, client = _start(wk.WarmKernelManager, tmp_path, env)
            kernels.append((manager, client))
            content, outputs = _run(client, show)
            assert content["status"] == "ok"
            printed = "".join(o["content"]["text"] for o in outputs if o["msg_type"] == "stream").split()
            assert int(printed[0]) != os.getpid()  # forked by the template, not started by us
            assert printed[1:4] == [str(tmp_path), "request", "False"]
            assert any("image/png" in o["content"].get("data", {}) for o in outputs if o["msg_type"] == "display_data")
        draws = [
            "".join(o["content"]["text"] for o in _run(c, "print(np.random.rand())")[1] if o["msg_type"] == "stream")
            for _, c in kernels
        ]
        assert draws[0] != draws[1]
        manager, client = kernels[0]
        reply = client.execute("import time; time.sleep(30)")
        time.sleep(1)
        manager.interrupt_kernel()
        message = client.get_shell_msg(timeout=20)
        assert message["parent_header"]["msg_id"] == reply and message["content"]["ename"] == "KeyboardInterrupt"
    finally:
        pids = [manager.provisioner.pid for manager, _ in kernels]
        for manager, client in kernels:
            client.stop_channels()
            manager.shutdown_kernel(now=False)
    assert not any(process_alive(pid) for pid in pids)

    monkeypatch.setenv("LIB_WARM_KERNELS", "0")
    assert wk.fork_kernel([sys.executable, "-m", "ipykernel_launcher", "-f", "c.json"], env, "/", (1, 2)) is None


CLIENT_THAT_DIES = """
import os, sys
from lib.book.run.warm_kernels import WarmKernelManager
manager = WarmKernelManager(kernel_name="python3")
manager.start_kernel(cwd=sys.argv[1])
print(manager.provisioner.pid, flush=True)
os._exit(0)
"""


def test_a_forked_kernel_ends_with_the_process_that_asked_for_it(tmp_path):
    env = {**os.environ, **WARM_ENV}
    env.pop("LIB_WARM_KERNELS", None)
    out = subprocess.run(
        [sys.executable, "-c", CLIENT_THAT_DIES, str(tmp_path)], cwd=ROOT, env=env, capture_output=True, text=True
    )
    kernel = int(out.stdout.split()[0])
    deadline = time.monotonic() + 20
    while process_alive(kernel) and time.monotonic() < deadline:
        time.sleep(0.2)
    alive = process_alive(kernel)
    if alive:
        os.kill(kernel, signal.SIGKILL)
    assert not alive


def test_papermills_asynchronous_manager_forks_its_kernel_too(tmp_path):
    """nbclient (under papermill, `lib run`) polls its kernel without blocking: AsyncWarmKernelManager, whose
    kernel is forked as WarmKernelManager's."""
    import asyncio

    env = {**os.environ, **WARM_ENV}
    env.pop("LIB_WARM_KERNELS", None)

    async def parent_of_kernel() -> int:
        manager = wk.AsyncWarmKernelManager(kernel_name="python3")
        await manager.start_kernel(cwd=str(tmp_path), env=env)
        client = manager.client()
        client.start_channels()
        try:
            await client.wait_for_ready(timeout=120)
            outputs = []
            await client.execute_interactive("import os; print(os.getppid())", output_hook=outputs.append)
            return int("".join(o["content"]["text"] for o in outputs if o["msg_type"] == "stream"))
        finally:
            client.stop_channels()
            await manager.shutdown_kernel()

    assert asyncio.run(parent_of_kernel()) != os.getpid()


TEMPLATE = """
import sys
from lib.book.run import warm_kernels
warm_kernels.WARM_MODULES, warm_kernels.IDLE_SECONDS = ("json",), float(sys.argv[2])
warm_kernels.serve(sys.argv[1])
"""


@pytest.mark.parametrize("ending", ["idle", "SIGTERM"])
def test_a_template_listens_once_ready_and_removes_its_socket_when_it_ends(tmp_path, ending):
    path = tmp_path / "t.sock"
    idle = "1" if ending == "idle" else "60"
    template = subprocess.Popen([sys.executable, "-c", TEMPLATE, str(path), idle], cwd=ROOT)
    try:
        deadline = time.monotonic() + 30
        while not wk._listening(str(path)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert wk._listening(str(path))
        if ending == "SIGTERM":
            template.terminate()
        assert template.wait(timeout=30) == 0
    finally:
        template.kill()
    assert not path.exists()
