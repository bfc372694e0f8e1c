"""The ranks' network: a namespace of the worker's own that holds nothing but loopback.

The ranks of a ranked run talk to each other over loopback TCP (gloo, and torch's TCPStore),
so their sockets must reach each other and nothing else. Under bubblewrap the box already has
a network namespace of its own (`--unshare-net`, loopback up). Without bubblewrap the worker
makes one before it loads anything (`private`): directly when started as root (before it
gives root up), or inside a user namespace of its own where the kernel lets an unprivileged
user have one. Where neither works the worker stays on the host's network, the runs' seccomp
filter still refuses every socket, and ranked runs are refused (`Sandbox.can_rank`).

Name lookups must work inside it (`MASTER_ADDR=localhost`, and torch asks the name of each
peer's address): the box gets an /etc/hosts and /etc/nsswitch.conf of its own (`data_files`);
without bubblewrap a rank may read the host's two (`readable`).
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import socket
import struct

CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000
SIOCGIFFLAGS, SIOCSIFFLAGS = 0x8913, 0x8914
IFF_UP, IFF_RUNNING = 0x1, 0x40

HOSTS = (
    "127.0.0.1\tlocalhost grill\n"
    "::1\tlocalhost ip6-localhost ip6-loopback\n"
    "::ffff:127.0.0.1\tlocalhost\n"  # a TCPStore's peers, as its dual-stack listener sees them
)
NSSWITCH = "hosts: files\n"
NAME_TABLES = ("/etc/hosts", "/etc/nsswitch.conf")
PCI_DEVICES = "/sys/bus/pci/devices"


def readable() -> list[str]:
    """What a rank may read besides the installation without bubblewrap: the host's name
    tables, the listen backlog's setting, and the PCI devices' descriptions, which gloo reads
    to place its network device (where /sys is missing, as in the box, it does without; where
    /sys is there but closed, it fails)."""
    found = [*NAME_TABLES, "/proc/sys/net/core/somaxconn", PCI_DEVICES]
    try:
        entries = os.listdir(PCI_DEVICES)
    except OSError:
        return found
    roots = {
        os.sep.join(os.path.realpath(os.path.join(PCI_DEVICES, entry)).split(os.sep)[:4])
        for entry in entries
    }
    return found + sorted(root for root in roots if root.startswith("/sys/devices/pci"))


def private() -> bool:
    """Move this process (the worker, before it loads anything) into a network namespace of
    its own with loopback up; False where the kernel allows none (it then stays where it is)."""
    libc = ctypes.CDLL(None, use_errno=True)
    uid, gid = os.getuid(), os.getgid()
    if os.geteuid() == 0:
        if libc.unshare(CLONE_NEWNET) != 0:
            return False
    else:
        if libc.unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0:
            return False
        try:  # the same ids inside as outside: files and limits mean what they meant
            _write("/proc/self/setgroups", "deny")
            _write("/proc/self/uid_map", f"{uid} {uid} 1")
            _write("/proc/self/gid_map", f"{gid} {gid} 1")
        except OSError:
            return False
    try:
        loopback_up()
    except OSError:
        return False
    if os.geteuid() != 0:
        drop_namespace_capabilities(libc)
    return True


def loopback_up() -> None:
    """A fresh network namespace has `lo` down: bring it up (CAP_NET_ADMIN in the namespace)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(probe.fileno(), SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(
            probe.fileno(),
            SIOCSIFFLAGS,
            struct.pack("16sH14x", b"lo", flags | IFF_UP | IFF_RUNNING),
        )


def drop_namespace_capabilities(libc: ctypes.CDLL) -> None:
    """The user namespace made the worker its root; it needs none of those capabilities."""
    header = struct.pack("=Ii", 0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = bytes(24)  # two empty (effective, permitted, inheritable) sets
    if libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "could not drop the user namespace's capabilities")


def _write(path: str, text: str) -> None:
    with open(path, "w") as file:
        file.write(text)


def data_files() -> dict[str, int]:
    """Descriptors holding the box's name tables, by where bubblewrap puts them
    (`--ro-bind-data FD PATH`); the caller passes them to bwrap and closes them afterwards."""
    found = {}
    for path, text in (("/etc/hosts", HOSTS), ("/etc/nsswitch.conf", NSSWITCH)):
        fd = os.memfd_create("grill-" + os.path.basename(path), os.MFD_CLOEXEC)
        os.write(fd, text.encode())
        os.lseek(fd, 0, os.SEEK_SET)
        found[path] = fd
    return found
