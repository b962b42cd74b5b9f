"""Kernels forked from a warm template: a chapter's kernel starts with torch, scipy, sympy and matplotlib imported.

Every kernel that `lib run` and the checked outputs start imported the same libraries again: about 5 CPU-seconds
each on a two-core AMD EPYC (Zen 3), torch 1.8 s, scipy.stats 1.2, statsmodels, matplotlib and sympy the rest, for
18 kernels in `make test` and more in the unit tests. A template imports them once and forks a kernel for each
request, as a Zygote does (Android) or multiprocessing's forkserver: the fork shares the imported modules, and the
kernel runs ipykernel's own application on jupyter_client's connection file, as `python -m ipykernel_launcher`
would.

    WarmKernelManager          jupyter_client's kernel managers (blocking, for nbval, and asynchronous, for
    AsyncWarmKernelManager     papermill) whose kernels come from a template when one can serve them
    WarmKernelProvisioner      (`fork_kernel`), else from `python -m ipykernel_launcher` as before
    serve(socket_path)         the template: imports WARM_MODULES, then forks a kernel per request
    start_for(kernel_name)     start the template a kernel would be forked from (`python -m THIS --start`)

A template serves only kernels whose environment matches its own in everything a library may read when it is
imported (`template_key`: all variables but the book's and the runners' own), so a kernel forked from it computes
as one started afresh; it forks only while it runs a single thread, and only on Linux (`FORK_SAFE`). It is started by the first kernel that needs
it, listens on a socket named by that key, and stops once it has had no request and no live kernel for
IDLE_SECONDS. `LIB_WARM_KERNELS=0` starts every kernel afresh.

Compatibility with a kernel started afresh, point by point (`_become_kernel`): a session of its own, the working
folder, standard streams and environment of the request; signal handlers, random seeds and `sys.path` as a fresh
interpreter has them; none of the book's modules (`lib`) pre-imported, so a kernel reads the code as it is now;
matplotlib imported with ipykernel's inline backend named but not loaded, so that the kernel enables it as usual.
"""

from __future__ import annotations

import atexit
import gc
import hashlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import suppress
from pathlib import Path
from typing import Any

from filelock import FileLock
from jupyter_client.connect import KernelConnectionInfo
from jupyter_client.manager import AsyncKernelManager, KernelManager
from jupyter_client.provisioning import LocalProvisioner

from lib.util.hashing import json_sha256
from lib.util.io import process_alive
from lib.util.runtime import warm_kernels

# what the chapters import (the Makefile's environment step compiles the rest of theirs beside it); a chapter that
# needs less pays nothing for the rest
WARM_MODULES = (
    "numpy", "torch", "scipy.stats", "scipy.optimize", "scipy.linalg", "sympy", "statsmodels.api", "pandas",
    "networkx", "matplotlib.pyplot", "IPython", "ipykernel.kernelapp", "ipykernel.ipkernel", "myst_nb.ext.glue",
)  # fmt: skip
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"
# variables that no library reads when it is imported: the book's own, jupyter's, the test runners' and make's
VOLATILE_PREFIXES = ("LIB_", "JPY_", "PYTEST_", "MAKE", "MFLAGS", "GNUMAKEFLAGS", "PYDEVD_", "COV_CORE_")
VOLATILE_NAMES = ("PWD", "OLDPWD", "SHLVL", "_", "COLUMNS", "LINES")
# Linux only: where a template can count its threads (/proc/self/task) and fork after loading native libraries
# (macOS's system frameworks are not fork-safe); elsewhere every kernel starts afresh
FORK_SAFE = sys.platform.startswith("linux")
IDLE_SECONDS = 30.0
READY_TIMEOUT_SECONDS = 180.0  # a fresh clone's first template also compiles what it imports


# ----------------------------------------------------------------------------------------------
# Which template serves a kernel
# ----------------------------------------------------------------------------------------------


def template_key(environment: dict[str, str], interpreter: list[str]) -> str:
    """Sixteen hex digits naming what a template's imports depend on: the interpreter and its options, every
    variable of `environment` but the volatile ones (VOLATILE_PREFIXES, VOLATILE_NAMES), the modules it imports
    and this module's own code."""
    imported_with = {
        name: value
        for name, value in environment.items()
        if not name.startswith(VOLATILE_PREFIXES) and name not in VOLATILE_NAMES
    }
    record = {
        "interpreter": interpreter,
        "environment": sorted(imported_with.items()),
        "modules": WARM_MODULES,
        "code": hashlib.sha256(Path(__file__).read_bytes()).hexdigest(),
    }
    return json_sha256(record)[:16]


def template_folder() -> Path:
    """This user's folder of template sockets (mode 0700), under /tmp where there is one: a socket's path has at
    most 107 bytes."""
    base = Path("/tmp") if os.path.isdir("/tmp") else Path(os.environ.get("TMPDIR", "."))
    folder = base / f"lib-warm-kernels-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    if folder.stat().st_uid != os.getuid() or folder.stat().st_mode & 0o077:
        raise PermissionError(f"{folder} is not this user's own folder")
    return folder


def launcher_options(cmd: list[str]) -> list[str] | None:
    """The interpreter's `-X` options of `cmd` when it starts ipykernel's launcher on this interpreter with a
    connection file (the command a template can stand in for: `python [-X...] -m ipykernel_launcher -f FILE
    ...`), else None."""
    if not cmd or cmd[0] != sys.executable or "-m" not in cmd:
        return None
    at = cmd.index("-m")
    options, rest = cmd[1:at], cmd[at + 1 :]
    if not all(option.startswith("-X") for option in options) or rest[:1] != ["ipykernel_launcher"]:
        return None
    return options if len(rest) >= 3 and rest[1] in ("-f", "--f") else None


def imports_start_no_thread(environment: dict[str, str]) -> bool:
    """Whether the libraries a template imports start no thread of their own under `environment`: OpenBLAS (numpy's
    and scipy's) starts its pool when it loads unless it is given one thread (OPENBLAS_NUM_THREADS, else
    OMP_NUM_THREADS), and a template with a second thread does not fork (`_answer`)."""
    return environment.get("OPENBLAS_NUM_THREADS", environment.get("OMP_NUM_THREADS", "")).strip() == "1"


# ----------------------------------------------------------------------------------------------
# The template
# ----------------------------------------------------------------------------------------------


def serve(socket_path: str) -> None:
    """Import WARM_MODULES, listen on `socket_path`, fork a kernel for each request; return after IDLE_SECONDS
    without a request or a live kernel. The socket appears only once the imports are done: a client that can
    connect is served at once."""
    if sys.path and Path(sys.path[0] or ".").resolve() == Path.cwd():
        del sys.path[0]  # as ipykernel's launcher: imports do not see the folder the template started in
    os.environ.setdefault("MPLBACKEND", INLINE_BACKEND)  # as ipykernel's application, before matplotlib reads it
    for name in WARM_MODULES:
        __import__(name)
    pyplot = sys.modules.get("matplotlib.pyplot")
    if (pyplot and pyplot._backend_mod is not None) or "matplotlib_inline.backend_inline" in sys.modules:
        raise RuntimeError("matplotlib loaded its backend in the template; the kernels would not enable it")
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # kernels are reaped as they end
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _stop)  # the socket is removed on the way out
    gc.collect()
    gc.freeze()  # the imported objects stay shared with the kernels instead of being copied by the collector

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    partial = f"{socket_path}.{os.getpid()}"
    listener.bind(partial)
    listener.listen(16)
    os.replace(partial, socket_path)
    bound = os.stat(socket_path).st_ino
    kernels: set[int] = set()
    last = time.monotonic()
    try:
        while True:
            ready, _, _ = select.select([listener], [], [], 1.0)
            kernels = {pid for pid in kernels if process_alive(pid)}
            if ready:
                connection, _ = listener.accept()
                with connection:
                    pid = _answer(connection, listener)
                if pid:
                    kernels.add(pid)
                last = time.monotonic()
            elif not kernels and time.monotonic() - last > IDLE_SECONDS:
                return
    finally:
        with suppress(FileNotFoundError):
            if os.stat(socket_path).st_ino == bound:  # not a newer template's
                os.unlink(socket_path)
        listener.close()


def _stop(signum: int, frame: Any) -> None:
    raise SystemExit(0)


def _answer(connection: socket.socket, listener: socket.socket) -> int | None:
    """Read one request (its JSON, then the kernel's standard output and error as descriptors), fork the kernel,
    reply with its pid or with why not. An empty request is a client's look whether the template listens."""
    fds: list[int] = []
    try:
        connection.settimeout(10)
        first, fds, _, _ = socket.recv_fds(connection, 1 << 16, 2)
        message = first + b"".join(iter(lambda: connection.recv(1 << 16), b""))
        if not message:
            return None
        request = json.loads(message)
        threads = len(os.listdir("/proc/self/task"))
        if threads != 1 or len(fds) != 2:
            connection.sendall(json.dumps({"refused": f"{threads} threads, {len(fds)} streams"}).encode())
            return None
        started_r, started_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the kernel: never returns
            os.close(started_r)
            _become_kernel(request, fds, [connection, listener], started_w)
        os.close(started_w)
        os.read(started_r, 1)  # its own session exists: signals to its group reach it
        os.close(started_r)
        connection.sendall(json.dumps({"pid": pid}).encode())
        return pid
    except (OSError, ValueError, KeyError) as err:  # a broken request is refused; the template goes on
        with suppress(OSError):
            connection.sendall(json.dumps({"refused": str(err)[:200]}).encode())
        return None
    finally:
        for fd in fds:
            os.close(fd)


def _become_kernel(request: dict[str, Any], fds: list[int], sockets: list[socket.socket], started: int) -> None:
    """In the forked child: become the kernel `python -m ipykernel_launcher ARGS` would have started, with the
    request's environment, folder and streams, then exit with its status."""
    status = 1
    try:
        os.setsid()
        os.write(started, b"x")
        os.close(started)
        for sock in sockets:
            sock.close()
        for signum in (signal.SIGCHLD, signal.SIGTERM):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(fds[0], 1)
        os.dup2(fds[1], 2)
        for fd in {null, *fds} - {0, 1, 2}:
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["environment"])
        for name in [name for name in sys.modules if name == "lib" or name.startswith("lib.")]:
            del sys.modules[name]  # the book's code is read afresh, as it is now
        import random

        import numpy as np

        random.seed()
        np.random.seed()  # noqa: NPY002 - numpy's global generator, seeded afresh as in a new interpreter
        _exit_with(int(request["client_pid"]))
        import ipykernel_launcher
        from ipykernel import kernelapp

        sys.argv = [ipykernel_launcher.__file__, *request["argv"]]
        kernelapp.launch_new_instance()
        status = 0
    except SystemExit as stop:
        status = stop.code if isinstance(stop.code, int) else 1
    except BaseException:  # noqa: BLE001 - the child must not return into the template's loop
        import traceback

        traceback.print_exc()
    finally:
        with suppress(BaseException):
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(status)


def _exit_with(client_pid: int) -> None:
    """End this kernel when the process that asked for it ends (ipykernel's parent poller watches the template,
    its parent by the fork)."""

    def watch() -> None:
        while process_alive(client_pid):
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="client-watch", daemon=True).start()


# ----------------------------------------------------------------------------------------------
# The client: ask a template for a kernel, starting the template if there is none
# ----------------------------------------------------------------------------------------------


def fork_kernel(cmd: list[str], environment: dict[str, str], cwd: str, streams: tuple[int, int]) -> int | None:
    """The pid of a kernel forked from the template for `environment`, running `cmd`'s arguments in `cwd` with
    standard output and error `streams` (file descriptors); None when no template can serve it (the caller then
    starts the kernel afresh)."""
    template = _template_for(cmd, environment)
    if template is None:
        return None
    socket_path, interpreter = template
    request = json.dumps({
        "argv": cmd[len(interpreter) + 2 :], "environment": environment, "cwd": cwd, "client_pid": os.getpid()
    }).encode()  # fmt: skip
    answer = _ask(socket_path, request, streams)
    if answer is None and _start_template(socket_path, environment, interpreter):  # none yet, or it stopped on idle
        answer = _ask(socket_path, request, streams)
    return answer.get("pid") if answer else None


def _template_for(cmd: list[str], environment: dict[str, str]) -> tuple[str, list[str]] | None:
    """The socket of the template that would serve kernel command `cmd` under `environment`, and the interpreter
    with its options that runs it; None where no template may (`launcher_options`, FORK_SAFE, LIB_WARM_KERNELS,
    `imports_start_no_thread`)."""
    options = launcher_options(cmd)
    if options is None or not FORK_SAFE or not warm_kernels() or not imports_start_no_thread(environment):
        return None
    interpreter = [sys.executable, *options]
    return str(template_folder() / f"{template_key(environment, interpreter)}.sock"), interpreter


def _ask(socket_path: str, request: bytes, streams: tuple[int, int]) -> dict[str, Any] | None:
    """The template's answer to `request`; None when no template listens there or it closed without one."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(30)
            connection.connect(socket_path)
            socket.send_fds(connection, [request], list(streams))
            connection.shutdown(socket.SHUT_WR)
            reply = b"".join(iter(lambda: connection.recv(4096), b""))
    except OSError:
        return None
    return json.loads(reply) if reply else None


def _start_template(socket_path: str, environment: dict[str, str], interpreter: list[str]) -> bool:
    """Start the template for `socket_path` (one process, under a lock shared by every client of that key) and
    wait until it listens; False if it ended or did not listen within READY_TIMEOUT_SECONDS."""
    with FileLock(f"{socket_path}.lock"):  # blocks until held; the file stays for the next client
        if _listening(socket_path):
            return True
        template = subprocess.Popen(
            [*interpreter, "-m", __spec__.name, socket_path],  # this module, also when it runs as __main__
            env=environment,
            cwd=Path(__file__).parents[3],  # where `lib` is
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        _TEMPLATES.append(template)
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        while time.monotonic() < deadline and template.poll() is None:
            if _listening(socket_path):
                return True
            time.sleep(0.05)
        return False


_TEMPLATES: list[subprocess.Popen] = []  # kept so that Python reaps them when they end


def _listening(socket_path: str) -> bool:
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.connect(socket_path)
            probe.shutdown(socket.SHUT_WR)
            return True
    except OSError:
        return False


class ForkedKernel:
    """A forked kernel as `subprocess.Popen` shows a process, for LocalProvisioner: poll, wait, signals. The
    template is its parent and reaps it, so its exit status is not known here: 0 once it has ended."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None and not process_alive(self.pid):
            self.returncode = 0
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"kernel {self.pid}", timeout or 0)
            time.sleep(0.05)
        return self.returncode or 0

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, signum)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class WarmKernelProvisioner(LocalProvisioner):
    """jupyter_client's local provisioner, with the kernel forked from a warm template when one can serve it."""

    async def launch_kernel(self, cmd: list[str], **kwargs: Any) -> KernelConnectionInfo:
        environment = dict(kwargs.get("env") or os.environ)
        streams = tuple(
            stream.fileno() if hasattr(stream, "fileno") else (stream if isinstance(stream, int) else default)
            for stream, default in ((kwargs.get("stdout"), 1), (kwargs.get("stderr"), 2))
        )
        if "JPY_PARENT_PID" not in environment:
            environment["JPY_PARENT_PID"] = str(os.getpid())
        try:
            pid = fork_kernel(cmd, environment, str(kwargs.get("cwd") or os.getcwd()), streams)  # type: ignore[arg-type]
        except OSError:  # no folder or socket for a template here: the kernel starts afresh
            pid = None
        if pid is None:
            return await super().launch_kernel(cmd, **kwargs)
        self.process = ForkedKernel(pid)  # type: ignore[assignment]
        self.pid = self.pgid = pid
        self.cwd = kwargs.get("cwd", Path.cwd())
        return self.connection_info


class WarmProvisioning:
    """A kernel manager's kernels from WarmKernelProvisioner (the provisioner is set before jupyter_client would
    take the default one)."""

    async def _async_pre_start_kernel(self, **kw: Any) -> tuple[list[str], dict[str, Any]]:
        if self.provisioner is None:
            import uuid

            self.kernel_id = self.kernel_id or kw.pop("kernel_id", str(uuid.uuid4()))
            self.provisioner = WarmKernelProvisioner(
                kernel_id=self.kernel_id, kernel_spec=self.kernel_spec, parent=self
            )
        return await super()._async_pre_start_kernel(**kw)


class WarmKernelManager(WarmProvisioning, KernelManager):
    """jupyter_client's blocking kernel manager with warm kernels: the checked outputs (nbval) use it."""


class AsyncWarmKernelManager(WarmProvisioning, AsyncKernelManager):
    """jupyter_client's asynchronous kernel manager, nbclient's default, with warm kernels: `lib run` (through
    papermill) uses it."""


def start_for(kernel_name: str = "python3") -> bool:
    """Start the template that kernel `kernel_name` (its kernelspec) would be forked from in this environment, and
    wait until it listens (`make`'s environment step, so that the chapters find it ready); False where none would
    serve such a kernel."""
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec(kernel_name)
    environment = {**os.environ, **spec.env}
    template = _template_for(spec.argv, environment)
    return template is not None and _start_template(template[0], environment, template[1])


if __name__ == "__main__":
    if sys.argv[1:2] == ["--start"]:
        start_for(*sys.argv[2:3])
    else:
        serve(sys.argv[1])
