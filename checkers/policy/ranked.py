"""torch.distributed for a rank of a ranked run: what the tables open, kept to the run's ranks.

The ranks of a ranked run reach only each other: their network namespace holds nothing but
loopback, and this module says so at the candidate's line before torch tries. A rendezvous
must be the run's own (`env://` with MASTER_ADDR on loopback, `tcp://` on loopback, or a
`file://` in the run's folder), a store the snippet makes must be too (`TCPStore` on loopback,
`FileStore` in the run's folder), and the backend is gloo on the CPU (NCCL only where the run
has CUDA). What the snippet sends through the object collectives (`all_gather_object`,
`broadcast_object_list`, `send_object_list`...) is unpickled by the other ranks, which runs
code outside the policy: in a ranked run they carry plain values and tensors only, serialised
with `torch.save` and read with `torch.load(weights_only=True)` (`safe_object_collectives`).
"""

from __future__ import annotations

import ctypes
import functools
import inspect
import io
import ipaddress
import os
import pickle
from collections.abc import Callable
from typing import Any
from urllib.parse import urlparse

from checkers.policy.identity import replace
from checkers.policy.refusal import Ranked, not_available, ranked_now
from checkers.policy.standins import _named, inside_run_folder, stand_in
from checkers.policy.tables import DISTRIBUTED_REASON

OWN_ADDRESS = (
    "the ranks reach only each other: rendezvous at this run's own address (env:// with"
    " MASTER_ADDR 127.0.0.1 or localhost, tcp://127.0.0.1:PORT, or file:// in the run's folder)"
)
PLAIN_OBJECTS = (
    "the other ranks unpickle what an object collective sends, which runs code: in the sandbox"
    " it carries plain values (numbers, strings, lists, tuples, dicts) and tensors"
)


def on_loopback(host: object) -> bool:
    """Whether `host` names this machine's loopback, the only network the ranks have."""
    if not isinstance(host, str):
        return False
    name = host.strip("[]").lower()
    if name in ("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _rank(what: str) -> Ranked:
    """The run's rank, or the refusal a single run gets for `what`."""
    ranked = ranked_now()
    if ranked is None:
        raise not_available(what, DISTRIBUTED_REASON)
    return ranked


def check_backend(backend: object, ranked: Ranked, call: str = "init_process_group") -> None:
    if backend is None:
        return
    text = str(backend).lower()
    names = {part.rsplit(":", 1)[-1].strip() for part in text.split(",")}
    offered = {"gloo", "undefined"} | ({"nccl"} if ranked.device == "cuda" else set())
    unknown = sorted(names - offered)
    if not unknown:
        return
    where = (
        "this run's ranks are on the CPU, where torch.distributed runs on gloo: use"
        ' backend="gloo", or leave it out'
        if ranked.device != "cuda"
        else 'the ranks run gloo, or NCCL on CUDA: use backend="nccl" or "gloo"'
    )
    raise not_available(f"{call}(backend={backend!r})", where)


def check_rendezvous(init_method: object, call: str = "init_process_group") -> None:
    """An init_method (or `rendezvous` url, `call`) the run's ranks can meet at without
    leaving the run."""
    if init_method is None or init_method == "env://":
        address = os.environ.get("MASTER_ADDR")
        if address is not None and not on_loopback(address):
            raise not_available(f"{call} with MASTER_ADDR={address!r}", OWN_ADDRESS)
        return
    if not isinstance(init_method, str):
        raise not_available(f"{call}(init_method={init_method!r})", OWN_ADDRESS)
    url = urlparse(init_method)
    if url.scheme == "tcp" and on_loopback(url.hostname):
        return
    if url.scheme == "file":
        inside_run_folder(url.path, f"{call}(init_method='file://...')")
        return
    if url.scheme == "env":
        check_rendezvous(None, call)
        return
    raise not_available(f"{call}(init_method={init_method!r})", OWN_ADDRESS)


def checked_init(real: Callable[..., Any]) -> Callable[..., Any]:
    """`init_process_group` as a rank holds it: its backend and its rendezvous checked first."""
    signature = inspect.signature(real)

    def init_process_group(*args: Any, **kwargs: Any) -> Any:
        ranked = _rank("torch.distributed.init_process_group")
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            return real(*args, **kwargs)  # torch says what is wrong with the call
        arguments = bound.arguments
        check_backend(arguments.get("backend"), ranked)
        if arguments.get("store") is None:
            check_rendezvous(arguments.get("init_method"))
        return real(*bound.args, **bound.kwargs)

    return _named(init_process_group, "torch.distributed", "init_process_group")


def checked_rendezvous(real: Callable[..., Any]) -> Callable[..., Any]:
    """`torch.distributed.rendezvous` as a rank holds it: its url checked first, as
    `init_process_group`'s `init_method` is."""

    def rendezvous(url: object, *args: Any, **kwargs: Any) -> Any:
        _rank("torch.distributed.rendezvous")
        check_rendezvous(url, "rendezvous")
        return real(url, *args, **kwargs)

    return _named(rendezvous, "torch.distributed", "rendezvous")


def checked_new_group(real: Callable[..., Any]) -> Callable[..., Any]:
    """`new_group` as a rank holds it: its backend checked first, as `init_process_group`'s."""
    signature = inspect.signature(real)

    def new_group(*args: Any, **kwargs: Any) -> Any:
        ranked = _rank("torch.distributed.new_group")
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            return real(*args, **kwargs)  # torch says what is wrong with the call
        check_backend(bound.arguments.get("backend"), ranked, "new_group")
        return real(*bound.args, **bound.kwargs)

    return _named(new_group, "torch.distributed", "new_group")


def checked_stores() -> tuple[type, type]:
    """`TCPStore` on loopback only, `FileStore` in the run's folder only."""
    import torch.distributed as dist

    class TCPStore(dist.TCPStore):
        def __init__(self, host_name: object, *args: Any, **kwargs: Any) -> None:
            _rank("torch.distributed.TCPStore")
            if not on_loopback(host_name):
                raise not_available(f"TCPStore({host_name!r})", OWN_ADDRESS)
            super().__init__(str(host_name), *args, **kwargs)

    class FileStore(dist.FileStore):
        def __init__(self, file_name: object, *args: Any, **kwargs: Any) -> None:
            _rank("torch.distributed.FileStore")
            path = inside_run_folder(file_name, "torch.distributed.FileStore")
            super().__init__(path, *args, **kwargs)

    for store in (TCPStore, FileStore):
        store.__module__ = "torch.distributed"
        # a rank's stack names what it waits in (a store that never answers): `TCPStore`
        init = store.__init__
        init.__code__ = init.__code__.replace(co_name=store.__name__)
        stand_in(store)
        stand_in(store.__init__)
    return TCPStore, FileStore


def install() -> None:
    """Wherever a snippet reaches them, `init_process_group`, `rendezvous`, `new_group`,
    `TCPStore` and `FileStore` are the checked ones (a single run is refused before it gets there: `DISTRIBUTED_REASON`)."""
    import torch.distributed as dist
    import torch.distributed.distributed_c10d as c10d

    init = c10d.init_process_group
    replace(init, checked_init(init))
    replace(c10d.rendezvous, checked_rendezvous(c10d.rendezvous))
    replace(c10d.new_group, checked_new_group(c10d.new_group))
    tcp, file = checked_stores()
    replace(dist.TCPStore, tcp)
    replace(dist.FileStore, file)


@functools.cache
def safe_object_collectives() -> None:
    """Make the object collectives of this process (a rank) carry plain values and tensors:
    `torch.save` on the sending side, which must read back under `weights_only` there (so an
    object of the snippet's own class is refused at the sender's line), and
    `torch.load(weights_only=True)` on the receiving side, which never runs code."""
    import torch
    import torch.distributed.distributed_c10d as c10d

    def object_to_tensor(obj: object, device: Any, group: object) -> tuple[Any, Any]:
        buffer = io.BytesIO()
        torch.save(obj, buffer)
        data = buffer.getvalue()
        try:
            torch.load(io.BytesIO(data), weights_only=True)
        except (pickle.UnpicklingError, RuntimeError, TypeError, ValueError, AttributeError):
            raise not_available(
                f"sending a {type(obj).__name__} between ranks", PLAIN_OBJECTS
            ) from None
        byte_tensor = torch.frombuffer(bytearray(data), dtype=torch.uint8).to(device)
        return byte_tensor, torch.LongTensor([byte_tensor.numel()]).to(device)

    def tensor_to_object(tensor: Any, tensor_size: Any, group: object) -> object:
        size = int(tensor_size)
        data = tensor.cpu()[:size].contiguous()
        raw = ctypes.string_at(data.data_ptr(), size) if size else b""
        try:
            return torch.load(io.BytesIO(raw), weights_only=True)
        except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError) as exc:
            raise RuntimeError(
                f"an object collective received what is not a plain value ({exc})"
            ) from None

    c10d._object_to_tensor = object_to_tensor  # grill's, in this rank only
    c10d._tensor_to_object = tensor_to_object
