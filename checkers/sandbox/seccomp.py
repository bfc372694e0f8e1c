"""Seccomp filters: the system calls a training loop never needs and that widen the kernel's
attack surface fail with EPERM.

The worker's filter (`program()`) is installed by bubblewrap (`--seccomp FD`) right before it
starts the worker, or, without bubblewrap, by the worker itself (`install`) once it has given up
root. Each run's child then adds its own (`run_program(pid)`), the same in both modes: no
socket (so without a network namespace a run still reaches no listener, UDP or Unix), no new
program (`execve`, and so no memfd to execute), no namespaces from `clone`, and no signal,
limit, priority or scheduling change aimed at any process but the run's own (the worker and
the next run share its user). A rank of a ranked run (`run_program(pid, ranked=True)`) may
open IPv4 and IPv6 sockets, and route-netlink ones (the C library asks which addresses the
machine has through them), and bind, listen, connect and accept on them, because its ranks
talk over loopback TCP; every other family (Unix sockets above all, which reach host
services through the file system) stays refused, and the network namespace the worker runs
in, which holds only loopback, keeps those sockets inside the run. Written as classic BPF by
hand for x86-64 only; elsewhere there is no filter and the isolation description does not
claim one.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct

PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000
LD_ABS, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06
RET_ALLOW, RET_ERRNO, RET_KILL_PROCESS = 0x7FFF0000, 0x00050000, 0x80000000

DENIED_X86_64 = {
    "ptrace": 101,
    "syslog": 103,
    "personality": 135,
    "pivot_root": 155,
    "acct": 163,
    "mount": 165,
    "umount2": 166,
    "swapon": 167,
    "swapoff": 168,
    "reboot": 169,
    "sethostname": 170,
    "setdomainname": 171,
    "iopl": 172,
    "ioperm": 173,
    "init_module": 175,
    "delete_module": 176,
    "quotactl": 179,
    "lookup_dcookie": 212,
    "kexec_load": 246,
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "unshare": 272,
    "perf_event_open": 298,
    "name_to_handle_at": 303,
    "open_by_handle_at": 304,
    "setns": 308,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "finit_module": 313,
    "kexec_file_load": 320,
    "bpf": 321,
    "userfaultfd": 323,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "mount_setattr": 442,
}
"""Debugging other processes, mounts and namespaces, kernel modules and keys, BPF and perf,
io_uring (a way around seccomp itself): none of it is needed to train a model."""
NETWORK_X86_64 = {
    "socket": 41,
    "connect": 42,
    "accept": 43,
    "bind": 49,
    "listen": 50,
    "socketpair": 53,
    "accept4": 288,
}
"""Opening, connecting and accepting sockets: a run's only channels are the pipes it is given."""
RUN_DENIED_X86_64 = {
    **NETWORK_X86_64,
    "execve": 59,
    "execveat": 322,
    "memfd_create": 319,
    "memfd_secret": 447,
    "tkill": 200,
    "pidfd_open": 434,
    "pidfd_send_signal": 424,
    "pidfd_getfd": 438,
    "kcmp": 312,
    "ioprio_set": 251,
    "migrate_pages": 256,
    "move_pages": 279,
    "process_madvise": 440,
    "process_mrelease": 448,
}
"""What a run never needs beyond the worker's list: sockets, a new program (so no memfd to
run either), and the calls that reach into another process."""
RANKED_SOCKET_CALLS = ("socket", "connect", "accept", "bind", "listen", "accept4")
"""What a rank of a ranked run may do with sockets (`socket` only for RANKED_FAMILIES)."""
AF_INET, AF_INET6, AF_NETLINK, NETLINK_ROUTE = 2, 10, 16, 0
RANKED_FAMILIES = (AF_INET, AF_INET6)
"""Socket families a rank may open, besides route netlink (AF_NETLINK with NETLINK_ROUTE)."""
SELF_ONLY_X86_64 = {
    "kill": (62, 0),
    "tgkill": (234, 0),
    "rt_sigqueueinfo": (129, 0),
    "rt_tgsigqueueinfo": (297, 0),
    "prlimit64": (302, 0),
    "setpriority": (141, 1),
    "sched_setaffinity": (203, 0),
    "sched_setscheduler": (144, 0),
    "sched_setparam": (142, 0),
    "sched_setattr": (314, 0),
}
"""Calls that name a process (number, argument holding its pid): allowed only on the run
itself (0, its pid, or its own process group), never on the worker or another run."""
CLONE = 56
CLONE_NAMESPACES = 0x7E020080
"""CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET | NEWTIME."""
ARGS_OFFSET = 16
CLONE3 = 435
"""Refused with ENOSYS, so the C library falls back to clone(), whose flags the namespaces
and rlimits already govern."""


def supported() -> bool:
    return platform.system() == "Linux" and platform.machine() in ("x86_64", "AMD64")


def op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    """One classic BPF instruction (`struct sock_filter`)."""
    return struct.pack("=HBBI", code, jt, jf, k)


DENY = op(RET, RET_ERRNO | errno.EPERM)


def _preamble() -> list[bytes]:
    """Kill a process of another architecture; refuse x32 numbers; leave the number loaded."""
    return [
        op(LD_ABS, 4),
        op(JEQ, AUDIT_ARCH_X86_64, 1, 0),
        op(RET, RET_KILL_PROCESS),
        op(LD_ABS, 0),
        op(JGE, X32_SYSCALL_BIT, 0, 1),
        DENY,
    ]


def _refusing(denied: list[tuple[int, int]]) -> list[bytes]:
    code = []
    for number, error in denied:
        code += [op(JEQ, number, 0, 1), op(RET, RET_ERRNO | error)]
    return code


def program(numbers: dict[str, int] | None = None) -> bytes:
    """A filter as packed instructions: the worker's (DENIED_X86_64, and clone3 answered
    ENOSYS) unless other `numbers` are given."""
    denied = [(nr, errno.EPERM) for nr in sorted((numbers or DENIED_X86_64).values())]
    if numbers is None:
        denied.append((CLONE3, errno.ENOSYS))
    return b"".join([*_preamble(), *_refusing(denied), op(RET, RET_ALLOW)])


def run_program(pid: int, ranked: bool = False) -> bytes:
    """The filter a run's child installs on itself (see the module docstring); `ranked`: a
    rank's, which may use IPv4, IPv6 and route-netlink sockets."""
    deny = DENY
    allow = op(RET, RET_ALLOW)
    code = _preamble()
    denied = dict(RUN_DENIED_X86_64)
    if ranked:
        for name in RANKED_SOCKET_CALLS:
            del denied[name]
        # socket(domain, type, protocol): IPv4, IPv6, or netlink's route protocol only
        families = [
            op(LD_ABS, ARGS_OFFSET),
            *(
                op(JEQ, family, 3 + len(RANKED_FAMILIES) - i, 0)
                for i, family in enumerate(RANKED_FAMILIES)
            ),
            op(JEQ, AF_NETLINK, 0, 2),
            op(LD_ABS, ARGS_OFFSET + 16),
            op(JEQ, NETLINK_ROUTE, 1, 0),
            deny,
            allow,
        ]
        code += [op(JEQ, NETWORK_X86_64["socket"], 0, len(families)), *families]
    code += _refusing([(nr, errno.EPERM) for nr in sorted(denied.values())])
    own = (0, pid, (-pid) & 0xFFFFFFFF)
    for number, arg in sorted(SELF_ONLY_X86_64.values()):
        # nr == number: load the pid argument; allow it when it is the run's own, else deny
        checks = [op(LD_ABS, ARGS_OFFSET + 8 * arg)]
        for i, value in enumerate(own):
            checks.append(op(JEQ, value, len(own) - i, 0))
        checks += [deny, op(RET, RET_ALLOW)]
        code += [op(JEQ, number, 0, len(checks))] + checks
        code.append(op(LD_ABS, 0))  # (the number again, for the checks that follow)
    code += [
        op(JEQ, CLONE, 0, 3),
        op(LD_ABS, ARGS_OFFSET),
        op(JSET, CLONE_NAMESPACES, 0, 1),
        deny,
        op(RET, RET_ALLOW),
    ]
    return b"".join(code)


def filter_fd() -> int | None:
    """A file descriptor holding the program, for `bwrap --seccomp FD`; None where the
    filter is not supported. The caller passes it to bwrap and closes it afterwards."""
    if not supported():
        return None
    fd = os.memfd_create("grill-seccomp", os.MFD_CLOEXEC)
    os.write(fd, program())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install(code: bytes) -> bool:
    """Install a filter on this process (and all it forks); False where seccomp is missing.
    Sets no_new_privs first, as the kernel requires of an unprivileged process."""
    if not supported():
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    buffer = ctypes.create_string_buffer(code, len(code))
    prog = _Program(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    if (
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
        or libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0
    ):
        raise OSError(ctypes.get_errno(), "could not install the seccomp filter")
    return True
