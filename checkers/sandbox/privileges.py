"""Giving up root for good, in both isolation modes.

Inside bubblewrap the worker becomes a user of its own (`isolation.private_ids`) with no
capability left: bubblewrap's own mounts make the Python installation readable to anyone.
Without bubblewrap the installation may lie where such a user cannot go (a pyenv under /root), so the worker keeps exactly one capability,
CAP_DAC_READ_SEARCH (read files and search folders regardless of their modes): it can still
import torch, and it can change nothing, not a file's mode, owner, times or attributes, and
write only where anyone may. Landlock, where the kernel has it, narrows the reads again.
"""

from __future__ import annotations

import ctypes
import os

PR_SET_KEEPCAPS = 8
CAPABILITY_VERSION_3 = 0x20080522
CAP_DAC_READ_SEARCH = 2


class _Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _Data(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def drop_privileges(uid: int, gid: int, keep_reading: bool = False) -> None:
    """Become `uid`:`gid` for good; with `keep_reading`, keep only CAP_DAC_READ_SEARCH."""
    libc = ctypes.CDLL(None, use_errno=True)
    if keep_reading and libc.prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "could not keep capabilities across setuid")
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    if keep_reading:
        data = (_Data * 2)()
        data[0].effective = data[0].permitted = 1 << CAP_DAC_READ_SEARCH
        if libc.capset(ctypes.byref(_Header(CAPABILITY_VERSION_3, 0)), data) != 0:
            raise OSError(ctypes.get_errno(), "could not set the reading capability")
        libc.prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0)
    if os.getresuid() != (uid, uid, uid) or os.getresgid() != (gid, gid, gid):
        raise SystemExit("could not drop privileges")
