"""Landlock (Linux 5.13+): a run may read only the Python installation, write only its own
working directory, and, where the kernel's Landlock is recent enough, make or accept no TCP
connection (ABI 4) and signal or reach no process outside itself (ABI 6).

With bubblewrap this repeats what the namespaces already do; without bubblewrap it is what
keeps a run off the user's files and network. Applied by each run's child to itself, after
its rlimits and before the job; a restriction can only be tightened, never lifted.
"""

from __future__ import annotations

import ctypes
import os
import sys

CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446
"""Syscall numbers, the same on every architecture (allocated after the tables unified)."""
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_BITS_BY_ABI = {1: 13, 2: 14, 3: 15, 4: 15, 5: 16}
"""How many filesystem rights each ABI knows (REFER came in 2, TRUNCATE in 3, IOCTL_DEV
in 5); a ruleset must handle only rights the kernel knows."""
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | (1 << 14) | (1 << 15)
"""Rights that apply to a file rather than a directory (truncate and ioctl included)."""
READ = EXECUTE | READ_FILE | READ_DIR
NET_TCP = 0b11
"""BIND_TCP | CONNECT_TCP (ABI 4): handled with no rule, so denied."""
SCOPES = 0b11
"""ABSTRACT_UNIX_SOCKET | SIGNAL (ABI 6): no abstract sockets or signals outside."""


class RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def abi() -> int:
    """The kernel's Landlock ABI version, 0 where there is none (or not Linux)."""
    if not sys.platform.startswith("linux"):
        return 0
    version: int = _libc().syscall(
        ctypes.c_long(CREATE_RULESET),
        None,
        ctypes.c_size_t(0),
        ctypes.c_uint(CREATE_RULESET_VERSION),
    )
    return max(version, 0)


def restrict(readable: list[str], writable: list[str], *, tcp: bool = False) -> int:
    """Confine this process (and what it starts) to the given paths; returns the ABI used,
    0 when Landlock is unavailable and nothing was done. `tcp`: leave TCP alone (a rank of a
    ranked run talks to its peers over loopback; its network namespace, which holds nothing
    but loopback, confines it instead)."""
    version = abi()
    if version == 0:
        return 0
    libc = _libc()
    fs_rights = (1 << FS_BITS_BY_ABI.get(version, 16)) - 1
    net = NET_TCP if version >= 4 and not tcp else 0
    attr = RulesetAttr(fs_rights, net, SCOPES if version >= 6 else 0)
    size = 8 if version < 4 else 16 if version < 6 else 24
    ruleset = libc.syscall(
        ctypes.c_long(CREATE_RULESET), ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint(0)
    )
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        for path in readable:
            allow(libc, ruleset, path, READ & fs_rights)
        for path in writable:
            allow(libc, ruleset, path, fs_rights)
        if (
            libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
            or libc.syscall(ctypes.c_long(RESTRICT_SELF), ctypes.c_int(ruleset), ctypes.c_uint(0))
            != 0
        ):
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)
    return version


def allow(libc: ctypes.CDLL, ruleset: int, path: str, rights: int) -> None:
    """Grant `rights` beneath `path` (a missing path is skipped)."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not os.path.isdir(path):
            rights &= FILE_RIGHTS
        rule = PathBeneathAttr(rights, fd)
        if libc.syscall(
            ctypes.c_long(ADD_RULE),
            ctypes.c_int(ruleset),
            ctypes.c_int(RULE_PATH_BENEATH),
            ctypes.byref(rule),
            ctypes.c_uint(0),
        ):
            raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
    finally:
        os.close(fd)
