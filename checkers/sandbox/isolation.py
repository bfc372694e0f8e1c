"""Layer 2: the command line that starts the warm worker, inside bubblewrap where it works.

bubblewrap gives the worker its own user, PID, network, IPC, UTS and cgroup namespaces, a
read-only view of only the Python installation (and of grill's `checkers` package), a fresh
/proc and minimal /dev, an empty tmpfs for /tmp and the working directory, and an empty
environment. Where bwrap is missing or refuses to run (another OS, user namespaces disabled)
grill falls back to a plain child process and says so in `Isolation.description`.
"""

from __future__ import annotations

import functools
import glob
import importlib.util
import itertools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from checkers.sandbox import landlock, network, seccomp
from checkers.sandbox.errors import SandboxError
from checkers.sandbox.limits import Limits

IsolationKind = Literal["bubblewrap", "process"]

BUBBLEWRAP = (
    "bubblewrap: no network, own PID namespace and host name, {user}, read-only "
    "Python installation, a small empty /tmp, no home, no environment; rlimits per run"
)
PROCESS_ONLY = (
    "process only (bubblewrap unavailable): {user}, rlimits, a killed process tree"
    " and a measured scratch folder per run"
)
LANDLOCK = "; Landlock: reads only the Python installation, writes only its own directory{tcp}"
SECCOMP = "; seccomp: no ptrace, mounts, namespaces, BPF, keys, io_uring or new sockets"
NO_LANDLOCK = "; the snippet policy is the only guard on files and network"

SYSTEM_READABLE = (
    "/usr",
    "/lib",
    "/lib64",
    "/bin",
    "/etc/ld.so.cache",
    "/proc/self",
    "/dev/urandom",
    "/dev/random",
)
"""What a run may read besides the Python installation (Landlock; CPU runs)."""

SANDBOX_ENV = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/tmp",
    "LANG": "C.UTF-8",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTORCH_NVML_BASED_CUDA_CHECK": "1",
}
"""The whole environment a worker sees. The NVML check keeps the warm worker from
initialising CUDA before it forks (a forked child cannot use a CUDA context it inherits)."""

CUDA_DEVICE_GLOBS = ("/dev/nvidia*", "/dev/nvidia-caps")
CUDA_LIBRARY_DIRS = (
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib64",
    "/usr/local/nvidia/lib64",
    "/usr/local/nvidia/lib",
    "/usr/lib/wsl/lib",
)


@dataclass(frozen=True)
class Isolation:
    kind: IsolationKind
    description: str


@functools.cache
def bubblewrap_works() -> bool:
    """bwrap is installed and accepts the worker's own arguments here (some kernels forbid
    namespaces, old versions lack options)."""
    true = shutil.which("true")
    if not sys.platform.startswith("linux") or shutil.which("bwrap") is None or true is None:
        return False
    probe = bwrap_arguments(dict(SANDBOX_ENV), cuda=False, as_root=os.geteuid() == 0)
    probe += ["--", true]
    try:
        return subprocess.run(probe, capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def process_only(note: str = "") -> Isolation:
    user = "runs as a user of its own" if os.geteuid() == 0 else "runs as you"
    filtered = SECCOMP if seccomp.supported() else ""
    return Isolation(
        "process", PROCESS_ONLY.format(user=user) + note + filtered + landlock_note(NO_LANDLOCK)
    )


def landlock_note(otherwise: str = "") -> str:
    version = landlock.abi()
    if not version:
        return otherwise
    return LANDLOCK.format(tcp=", no TCP" if version >= 4 else "")


def fallback(reason: str) -> Isolation:
    """Process-only isolation after bubblewrap was chosen but could not start the worker."""
    return process_only(f"; bubblewrap failed: {reason}")


def readable_paths(job_paths: tuple[str, ...] = (), *, ranked: bool = False) -> list[str]:
    """What a run may read (Landlock); a rank also reads the name tables, which the box of a
    bubblewrap worker has of its own and a process-only worker takes from the host."""
    return [
        *read_only_paths(),
        *job_paths,
        *SYSTEM_READABLE,
        *(network.readable() if ranked else ()),
    ]


def choose(requested: Literal["auto", "bubblewrap", "process"] = "auto") -> Isolation:
    if requested == "process":
        return process_only()
    if bubblewrap_works():
        user = "runs as a user of its own" if os.geteuid() == 0 else "own user namespace"
        filtered = SECCOMP if seccomp.supported() else ""
        return Isolation("bubblewrap", BUBBLEWRAP.format(user=user) + filtered + landlock_note())
    if requested == "bubblewrap":
        raise SandboxError(
            "bubblewrap isolation was requested, but bwrap is not installed or "
            "cannot create namespaces here (install the 'bubblewrap' package)"
        )
    return process_only()


def package_root() -> Path:
    """The directory holding the `checkers` package (a checkout, or site-packages)."""
    return Path(__file__).resolve().parent.parent.parent


def worker_argv(
    own_pid_namespace: bool,
    job_paths: tuple[str, ...] = (),
    run_as: tuple[int, int] | None = None,
    warm: bool = True,
    preload: tuple[str, ...] = (),
) -> list[str]:
    path = [str(package_root()), *job_paths]
    boot = f"import sys; sys.path[:0] = {path!r}; from checkers.sandbox.worker import main; main()"
    argv = [sys.executable, "-I", "-c", boot]
    if run_as is not None:
        argv += ["--run-as", f"{run_as[0]}:{run_as[1]}"]
    if not warm:
        argv.append("--cold")
    for module in preload:
        argv += ["--preload", module]
    return argv + (["--own-pid-namespace"] if own_pid_namespace else [])


PRIVATE_IDS = range(0x70000000, 0x70000000 + (1 << 26))
"""The user ids a worker started by root runs as: one of its own per sandbox (see `private_ids`)."""
_PRIVATE_SLOTS = 16
_slots = itertools.count()


def private_ids() -> tuple[int, int]:
    """A user and group id of its own for a worker started by root. Root ignores RLIMIT_NPROC,
    and the limit counts every task of the run's user on the machine: a user shared with anyone
    (`nobody`: other sandboxes, a daemon) put their threads against the run's own, so a run
    failed to start a thread ("Resource temporarily unavailable") whenever they had enough. The
    id is made of this process's id (below 2**22, Linux's most) and one of 16 slots, so
    sandboxes alive at the same time do not share one; an id some account holds is skipped."""
    import pwd

    for _ in range(_PRIVATE_SLOTS):
        uid = PRIVATE_IDS[
            (os.getpid() % (1 << 22)) * _PRIVATE_SLOTS + next(_slots) % _PRIVATE_SLOTS
        ]
        try:
            pwd.getpwuid(uid)
        except KeyError:
            return uid, uid
    return uid, uid  # every slot has an account: share one rather than run as root


def worker_command(
    isolation: Isolation,
    *,
    cuda: bool,
    run_as: tuple[int, int] | None,
    job_paths: tuple[str, ...] = (),
    seccomp_fd: int | None = None,
    scratch_bytes: int,
    warm: bool = True,
    preload: tuple[str, ...] = (),
    data_fds: dict[str, int] | None = None,
) -> tuple[list[str], dict[str, str]]:
    """The worker's argv and environment for the chosen isolation. `job_paths` are extra
    directories holding job modules, bound read-only and put first on sys.path;
    `seccomp_fd` holds the filter bwrap installs (see `seccomp.filter_fd`), `data_fds` the
    files bwrap writes into the box (`network.data_files`). A worker started by root gives up
    root in both modes, for `run_as` (`private_ids`; None when not root); without bubblewrap it installs the seccomp filter itself, and first
    moves into a network namespace of its own where it can (`network.private`). `preload`:
    job modules the worker imports (and warms) before its first run."""
    env = dict(SANDBOX_ENV)
    if cuda:
        env.update(cuda_environment())
    as_root = run_as is not None
    if isolation.kind == "process":
        argv = worker_argv(False, job_paths, run_as, warm, preload) + ["--private-network"]
        return argv + (["--seccomp"] if seccomp.supported() else []), env
    argv = worker_argv(True, job_paths, run_as, warm, preload)
    args = bwrap_arguments(
        env, cuda=cuda, extra=job_paths, as_root=as_root, scratch_bytes=scratch_bytes
    )
    for path, fd in (data_fds or {}).items():
        args += ["--perms", "0444", "--ro-bind-data", str(fd), path]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    return args + ["--"] + argv, env


def bwrap_arguments(
    env: dict[str, str],
    *,
    cuda: bool,
    extra: tuple[str, ...] = (),
    as_root: bool = False,
    scratch_bytes: int = Limits.scratch_bytes,
) -> list[str]:
    """As a normal user, bwrap adds a user namespace. As root it would map root to root,
    whom the kernel exempts from RLIMIT_NPROC; so root's worker keeps only the right to
    change its ids and becomes a user of its own (`private_ids`) before it loads anything."""
    if as_root:
        namespaces = [
            "--unshare-ipc",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--cap-drop",
            "ALL",
            "--cap-add",
            "CAP_SETUID",
            "--cap-add",
            "CAP_SETGID",
        ]
    else:
        namespaces = ["--unshare-all", "--cap-drop", "ALL"]
    args = [
        "bwrap",
        *namespaces,
        "--die-with-parent",
        "--new-session",
        "--hostname",
        "grill",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--perms",
        "1777",
        "--size",
        str(scratch_bytes),
        "--tmpfs",
        "/tmp",
        "--chdir",
        "/tmp",
        "--clearenv",
    ]
    for top in ("/bin", "/lib", "/lib64", "/sbin"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    args += ["--ro-bind", "/usr", "/usr", "--perms", "0755", "--dir", "/etc"]
    args += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    bound = [*read_only_paths(), *extra]
    for directory in sorted({str(a) for p in bound for a in Path(p).parents if str(a) != "/"}):
        args += ["--perms", "0755", "--dir", directory]  # traversable once ids are dropped
    for path in bound:
        args += ["--ro-bind", path, path]
    if cuda:
        for device in cuda_device_nodes():
            args += ["--dev-bind", device, device]
        args += ["--ro-bind", "/sys", "/sys"]
    for name, value in env.items():
        args += ["--setenv", name, value]
    return args


def read_only_paths() -> list[str]:
    """The Python installation, the venv, where torch and RestrictedPython live, and grill's
    `checkers` package: nothing else of the host's files."""
    paths = {
        sys.base_prefix,
        sys.prefix,
        os.path.dirname(os.path.realpath(sys.executable)),
        str(Path(__file__).resolve().parent.parent),
    }
    for package in ("torch", "RestrictedPython"):
        spec = importlib.util.find_spec(package)
        if spec and spec.submodule_search_locations:
            paths.add(str(Path(next(iter(spec.submodule_search_locations))).parent))
    kept: list[str] = []
    for path in sorted(p for p in paths if not p.startswith("/usr/") and os.path.exists(p)):
        if not any(path.startswith(parent + os.sep) for parent in kept):
            kept.append(path)
    return kept


def cuda_device_nodes() -> list[str]:
    return sorted({path for pattern in CUDA_DEVICE_GLOBS for path in glob.glob(pattern)})


def cuda_environment() -> dict[str, str]:
    """Where the driver's libcuda lives, and which GPUs the host lets us use."""
    env = {}
    dirs = [d for d in CUDA_LIBRARY_DIRS if glob.glob(os.path.join(d, "libcuda.so*"))]
    if dirs:
        env["LD_LIBRARY_PATH"] = ":".join(dirs)
    if "CUDA_VISIBLE_DEVICES" in os.environ:
        env["CUDA_VISIBLE_DEVICES"] = os.environ["CUDA_VISIBLE_DEVICES"]
    return env


def host_has_cuda_devices() -> bool:
    return bool(glob.glob("/dev/nvidia[0-9]*"))
