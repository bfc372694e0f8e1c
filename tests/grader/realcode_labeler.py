"""An independent measurement for the real-code corpus (tests/grader/realcode/): does a script's
autograd graph keep growing as training goes on? It uses nothing from grill.

`labeler.py` rescales a `STEPS = <int>` line, which real scripts do not have, and stops at a line
cap that real scripts pass long before they end. This runs a script whole instead, in-process as
`__main__` (`runpy`), in a fresh temporary folder (so its checkpoints and logs land there), with
`sys.argv` set to the script alone, on one torch thread, after `torch.manual_seed(0)` and
`random.seed(0)`. After every backward pass (`Tensor.backward`, `torch.autograd.backward`,
`torch.autograd.grad`) and every optimizer step it counts the distinct autograd nodes reachable
from every live tensor and kept node (`labeler.reachable_graph_nodes`), and once more after the
script returns, before its namespace is dropped.

Label: `leak` when the series climbs with training: the smallest count over the last quarter of
the samples taken while it trains (the one after it returns is reported as `end`) is at least RATIO times, and UNITS one-step graphs more than, the largest count over
the first quarter; else `clean`. One step's graph (`unit`) is estimated as the smallest count right
after a backward pass (the step just finished is still referenced by its `loss`), at least
MIN_UNIT. As in `labeler.py`, what exists before the script starts (torch, this module) is frozen
out of the scans (`gc.freeze()`), after a few warm-up steps.

A script labelled `"ranks": N` in `realcode/labels.json` (written for `torchrun
--nproc-per-node N`) is measured as torchrun runs it: N processes of this labeler, each with
torchrun's environment (`RANK`, `LOCAL_RANK`, `WORLD_SIZE`, `MASTER_ADDR=127.0.0.1` and a free
`MASTER_PORT`; gloo on loopback, CPU), sharing one temporary folder, each measuring its own
rank's graph as above. The run is a leak when any rank's series climbs (each rank's figures are
kept, as `ranks`).

    python tests/grader/realcode_labeler.py [FILE...]   # default: every file of realcode/
    python tests/grader/realcode_labeler.py --json FILE...
    python tests/grader/realcode_labeler.py --ranks 2 FILE...   # default: labels.json's "ranks"
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import json
import os
import random
import runpy
import socket
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import torch
from torch.optim.optimizer import register_optimizer_step_post_hook

sys.path.insert(0, str(Path(__file__).resolve().parent))
from labeler import reachable_graph_nodes, warm_up  # noqa: E402  (the corpus labeler's node count)

RATIO = 1.5
UNITS = 3
MIN_UNIT = 8
RANK_TIMEOUT_S = 600
"""How long a ranked script's processes may take together, each measuring its own rank."""
HERE = Path(__file__).resolve().parent / "realcode"


def default_files() -> list[Path]:
    return sorted(HERE.glob("*.py")) + sorted((HERE / "unusual").glob("*.py"))


def labelled_ranks(path: Path) -> int | None:
    """The ranks labels.json runs `path` with (None: one process)."""
    labels = json.loads((HERE / "labels.json").read_text(encoding="utf-8"))
    entry = labels.get(path.relative_to(HERE).as_posix()) if path.is_relative_to(HERE) else None
    return entry.get("ranks") if entry else None


def measure_ranked(path: Path, ranks: int) -> dict:
    """`path` run as `torchrun --nproc-per-node RANKS` runs it, each rank measured by a process
    of this labeler (`measure`); a leak when any rank's graph climbs."""
    with socket.socket() as probe:  # a port free now, for the ranks' rendezvous
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory() as folder:
        processes = [
            subprocess.Popen(
                [sys.executable, __file__, "--json", "--folder", folder, str(path)],
                env={**os.environ, **torchrun_environment(rank, ranks, port)},
                stdout=subprocess.PIPE,
                text=True,
            )
            for rank in range(ranks)
        ]
        try:
            outputs = [process.communicate(timeout=RANK_TIMEOUT_S)[0] for process in processes]
        finally:  # a rank that hangs (its peer died in a collective) is not left behind
            for process in processes:
                if process.poll() is None:
                    process.kill()
                    process.wait()
    per_rank = []
    for rank, (process, output) in enumerate(zip(processes, outputs, strict=True)):
        lines = output.strip().splitlines()
        if not lines:
            per_rank.append({"label": "clean", "error": f"rank {rank} exited {process.returncode}"})
            continue
        result = json.loads(lines[-1])
        result.pop("file")
        per_rank.append(result)
    errors = [f"rank {r}: {m['error']}" for r, m in enumerate(per_rank) if m.get("error")]
    return {
        "label": "leak" if any(m["label"] == "leak" for m in per_rank) else "clean",
        "ranks": per_rank,
        "seconds": max(m.get("seconds", 0.0) for m in per_rank),
        "error": "; ".join(errors) or None,
    }


def torchrun_environment(rank: int, world: int, port: int) -> dict[str, str]:
    """What `torchrun --nproc-per-node WORLD` gives rank RANK (one node), gloo on loopback."""
    return {
        "RANK": str(rank),
        "LOCAL_RANK": str(rank),
        "WORLD_SIZE": str(world),
        "LOCAL_WORLD_SIZE": str(world),
        "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": str(port),
        "GLOO_SOCKET_IFNAME": "lo",
    }


def measure(path: Path, folder: str | None = None) -> dict:
    """`path` run whole in this process, in `folder` (a fresh temporary one when None)."""
    samples: list[tuple[str, int]] = []

    def sample(kind: str) -> None:
        samples.append((kind, reachable_graph_nodes()))

    backward, autograd_backward, autograd_grad = (
        torch.Tensor.backward,
        torch.autograd.backward,
        torch.autograd.grad,
    )

    def patched_backward(self, *args, **kwargs):
        result = backward(self, *args, **kwargs)
        sample("backward")
        return result

    def patched_autograd_backward(*args, **kwargs):
        result = autograd_backward(*args, **kwargs)
        sample("backward")
        return result

    def patched_grad(*args, **kwargs):
        result = autograd_grad(*args, **kwargs)
        sample("grad")
        return result

    handle = register_optimizer_step_post_hook(lambda *_: sample("step"))
    torch.Tensor.backward = patched_backward
    torch.autograd.backward = patched_autograd_backward
    torch.autograd.grad = patched_grad
    argv, cwd, threads = sys.argv, os.getcwd(), torch.get_num_threads()
    output = io.StringIO()
    error = None
    started = time.perf_counter()
    namespace: dict = {}
    warm_up()
    gc.collect()
    gc.freeze()
    with contextlib.ExitStack() as scope:
        if folder is None:
            folder = scope.enter_context(tempfile.TemporaryDirectory())
        try:
            os.chdir(folder)
            sys.argv = [str(path)]
            torch.set_num_threads(1)
            torch.manual_seed(0)
            random.seed(0)
            with (
                contextlib.redirect_stdout(output),
                contextlib.redirect_stderr(output),
                warnings.catch_warnings(),
            ):
                warnings.simplefilter("ignore")
                namespace = runpy.run_path(str(path), run_name="__main__")
        except SystemExit as exc:
            if exc.code not in (0, None):
                error = f"SystemExit({exc.code})"
        except Exception as exc:  # the script's own failure: reported
            error = f"{type(exc).__name__}: {exc}"
        finally:
            sample("end")  # what the finished script still holds (its globals are alive here)
            namespace.clear()
            handle.remove()
            torch.Tensor.backward = backward
            torch.autograd.backward = autograd_backward
            torch.autograd.grad = autograd_grad
            sys.argv = argv
            torch.set_num_threads(threads)
            os.chdir(cwd)
            gc.unfreeze()
    counts = [n for kind, n in samples if kind != "end"] or [0]
    after_backward = [n for kind, n in samples if kind == "backward"] or [MIN_UNIT]
    unit = max(MIN_UNIT, min(after_backward))
    quarter = max(1, len(counts) // 4)
    first, last = max(counts[:quarter]), min(counts[-quarter:])
    grows = last >= RATIO * first and last - first >= UNITS * unit
    return {
        "label": "leak" if grows else "clean",
        "samples": len(counts),
        "unit": unit,
        "first_quarter_max": first,
        "last_quarter_min": last,
        "end": samples[-1][1],
        "peak": max(counts),
        "seconds": round(time.perf_counter() - started, 1),
        "error": error,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--json", action="store_true", help="one JSON object per file")
    parser.add_argument("--ranks", type=int, help="run as that many ranks (default: the label's)")
    parser.add_argument("--folder", help=argparse.SUPPRESS)  # a rank's: the run's shared folder
    args = parser.parse_args(argv)
    files = [path.resolve() for path in args.files] or default_files()
    failed = False
    for path in files:
        ranks = None if "RANK" in os.environ else args.ranks or labelled_ranks(path)
        result = measure_ranked(path, ranks) if ranks else measure(path, args.folder)
        failed |= result["error"] is not None
        name = path.relative_to(HERE) if path.is_relative_to(HERE) else path
        if args.json:
            print(json.dumps({"file": str(name), **result}), flush=True)
        elif "ranks" in result:
            for rank, measured in enumerate(result["ranks"]):
                print(f"{measured['label']:5} {name} rank {rank}: {summary(measured)}", flush=True)
            print(f"{result['label']:5} {name}: {len(result['ranks'])} ranks", flush=True)
        else:
            print(f"{result['label']:5} {name}: {summary(result)}", flush=True)
    return 1 if failed else 0


def summary(result: dict) -> str:
    if "samples" not in result:
        return result.get("error") or "no measurement"
    return (
        f"{result['samples']} samples, unit {result['unit']}, first quarter max"
        f" {result['first_quarter_max']}, last quarter min {result['last_quarter_min']}, end"
        f" {result['end']}, {result['seconds']}s"
        + (f"; {result['error']}" if result["error"] else "")
    )


if __name__ == "__main__":
    sys.exit(main())
