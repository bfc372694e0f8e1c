"""A trusted job for ranked runs (no policy, no grading): what a rank of a ranked run can do
at the operating-system level, with torch.distributed on gloo as grill's own code uses it.

`payload["act"]` says what: `all_reduce` (every rank, then report), `hang` (rank 0 waits in
an all_reduce no other rank joins), `crash` (rank 1 dies of SIGSEGV), `raise` (rank 1 fails),
`sleep` (every rank sleeps `seconds`), `spin` (rank 1 computes forever), `connect` (try
`payload["port"]` on 127.0.0.1, and the other ranks' port), `env` (report the environment),
`listdir` (what the rank's scratch folder holds).
"""

from __future__ import annotations

import os
import signal
import socket
import time
from collections.abc import Mapping

from checkers.measurements import RunFailed


def run_rank(payload: Mapping[str, object], finish: object = None) -> dict[str, object]:
    import torch
    import torch.distributed as dist

    act = payload.get("act")
    rank = int(os.environ["RANK"])
    if act == "env":
        keys = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")
        return {"env": {k: os.environ.get(k) for k in keys}}
    if act == "listdir":
        return {"files": sorted(os.listdir("."))}
    if act == "connect":
        return {"reached": reaches(int(cast_int(payload.get("port"))))}
    if act == "sleep":
        time.sleep(float(cast_int(payload.get("seconds"))))
        return {"slept": True}
    dist.init_process_group("gloo")
    world = dist.get_world_size()
    if act == "hang" and rank == 0:
        dist.all_reduce(torch.ones(1))
    if act == "crash" and rank == 1:
        os.kill(os.getpid(), signal.SIGSEGV)
    if act == "raise" and rank == 1:
        raise RunFailed("error", "ValueError", "rank 1 failed on purpose", 7)
    if act == "spin" and rank == 1:
        while True:
            pass
    total = torch.tensor([float(rank)])
    if act == "all_reduce":
        dist.all_reduce(total)
    return {"rank": rank, "world": world, "total": total.item()}


def reaches(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def cast_int(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) else 0.0
