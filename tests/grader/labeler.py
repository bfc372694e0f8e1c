"""An independent labeler for the grader's corpus: does this snippet's autograd graph keep
growing as training goes on?

It uses nothing from grill. It runs a snippet in-process, twice, with its training length
doubled, and measures how much autograd graph stays reachable while it runs:

* Every snippet sets its training length on one top-level line, ``STEPS = <int>`` (every loop
  that should scale with training derives from it). The labeler runs the snippet with
  ``STEPS = N`` (the file's own value) and with ``STEPS = 2N``, each time in a fresh namespace,
  stdout and stderr captured, after ``torch.manual_seed(0)`` and ``random.seed(0)``, on one
  torch thread.
* A snippet whose inner loop has the data's length (an epoch's batches, a validation pass) also
  sets it on one top-level line, ``BATCHES = <int>``, and is run a third time with ``BATCHES =
  2B`` (``STEPS`` as written). Doubling the outer loop cannot tell an epoch-long window (an
  epoch total reset every epoch: it climbs as high again, however many epochs) from one the
  code bounds (a list cleared every ten steps); doubling the inner loop can: the first grows
  with it, the second does not.
* While a run goes on it samples, at regular points, the number of distinct autograd nodes
  reachable from every live object: each ``torch.Tensor`` that ``gc.get_objects()`` finds (its
  ``grad_fn``; for a leaf, the ``grad_fn`` of its ``.grad`` when that has one) and each
  ``torch.autograd.graph.Node`` kept directly, walked through ``next_functions``
  (``AccumulateGrad`` nodes are skipped). The points are line events of the snippet's own file
  (``sys.settrace``): a first pass counts them, the second takes ``SAMPLES`` samples spread
  evenly over the run, each at a deterministic random offset inside its slot (so a regular
  window, e.g. an accumulation cycle, is not always seen at the same phase), plus one final
  sample after the snippet returns. A run's *peak* is its largest sample.
* Label: ``leak`` when the peak grows with training length or with the inner loop's length,
  ``peak_2n >= RATIO * peak_n`` and ``peak_2n - peak_n >= UNITS * unit`` (or the same of
  ``peak_2b``), else ``clean``. ``unit`` is the size of one step's graph, estimated as the peak
  of a run with ``STEPS = 1`` (and ``BATCHES = 1``) and never below ``MIN_UNIT`` (``MIN_UNIT``
  alone when that run fails).

Files without a ``STEPS =`` line (the corpus files that predate this labeler) cannot be
rescaled; for them the trend is read from one run's own progress instead: ``peak_n`` is the
largest sample taken in the first half of the run's line events, ``peak_2n`` the largest
overall, and ``unit`` is ``MIN_UNIT``. A run stops after ``LINE_CAP`` line events (an endless
``while True`` loop), which the result reports.

    python tests/grader/labeler.py [FILE...]          # label, print peaks (default: all files)
    python tests/grader/labeler.py --write [FILE...]  # also record them in labels.json
    python tests/grader/labeler.py --check [FILE...]  # exit 1 if a name prefix disagrees

``--write`` updates ``labels.json`` next to each file (``tests/grader/corpus/labels.json``,
``tests/grader/benign/labels.json``) and drops entries whose file is gone. ``--check`` expects
``leak_*.py`` to be labelled leak and every other file (``clean_*.py``, the benign folder)
clean; a snippet that raises is labelled from the samples taken before it failed, and its
error is printed and fails the check.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import contextlib
import gc
import io
import json
import random
import sys
import time
import warnings
from pathlib import Path

import torch

SAMPLES = 60  # samples per run (plus the final one)
RATIO = 1.5  # peak(2N) must be at least this multiple of peak(N) ...
UNITS = 3  # ... and exceed it by at least this many steps' graphs
MIN_UNIT = 8  # floor of one step's graph size, in nodes
LINE_CAP = 40_000  # line events after which a run is stopped
HERE = Path(__file__).resolve().parent
FOLDERS = (HERE / "corpus", HERE / "benign")
LABELS = "labels.json"


class _Stopped(BaseException):
    """Raised from the trace function to end a run that reached LINE_CAP."""


def reachable_graph_nodes() -> int:
    """Distinct autograd nodes reachable from every live tensor and every kept Node."""
    gc.collect()
    node_type = torch.autograd.graph.Node
    roots = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for obj in gc.get_objects():
            if isinstance(obj, torch.Tensor):
                try:
                    fn = obj.grad_fn
                except RuntimeError:  # a view of a base modified in place (FSDP's flat
                    continue  # parameter's views): torch refuses to read its grad_fn
                if fn is None:  # a leaf: its .grad may carry a graph (create_graph=True)
                    grad = obj.grad
                    fn = grad.grad_fn if grad is not None else None
                if fn is not None:
                    roots.append(fn)
            elif isinstance(obj, node_type):
                roots.append(obj)
    seen = {}  # id -> node: holding the wrappers keeps their ids from being reused
    stack = roots
    while stack:
        node = stack.pop()
        if id(node) in seen or type(node).__name__ == "AccumulateGrad":
            continue
        seen[id(node)] = node
        for nxt, _ in node.next_functions:
            if nxt is not None and id(nxt) not in seen:
                stack.append(nxt)
    return len(seen)


def steps_line(tree: ast.Module, name: str = "STEPS") -> ast.Assign | None:
    """The single top-level `NAME = <int>` assignment (`STEPS`, `BATCHES`), or None."""
    found = [
        node
        for node in tree.body
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id == name
        and isinstance(node.value, ast.Constant)
        and type(node.value.value) is int
    ]
    if len(found) > 1:
        raise ValueError(f"more than one top-level `{name} = <int>` line")
    return found[0] if found else None


class Run:
    """One execution of a snippet: line count, samples (line index, nodes), output, error."""

    def __init__(self, code, filename: str, sample_at: set[int] | None):
        self.code, self.filename, self.sample_at = code, filename, sample_at
        self.lines = 0
        self.samples: list[tuple[int, int]] = []
        self.capped = False
        self.error: str | None = None
        self.output = ""
        self.seconds = 0.0

    def _local(self, frame, event, arg):
        if event == "line":
            self.lines += 1
            if self.lines > LINE_CAP:
                raise _Stopped
            if self.sample_at is not None and self.lines in self.sample_at:
                self.samples.append((self.lines, reachable_graph_nodes()))
        return self._local

    def _global(self, frame, event, arg):
        if frame.f_code.co_filename == self.filename:
            return self._local
        return None

    def execute(self) -> Run:
        namespace = {"__name__": "__main__", "__file__": self.filename, "__builtins__": builtins}
        buffer = io.StringIO()
        grad_mode, dtype, threads = (
            torch.is_grad_enabled(),
            torch.get_default_dtype(),
            torch.get_num_threads(),
        )
        previous_trace = sys.gettrace()
        torch.set_num_threads(1)
        torch.manual_seed(0)
        random.seed(0)
        start = time.perf_counter()
        try:
            with (
                contextlib.redirect_stdout(buffer),
                contextlib.redirect_stderr(buffer),
                warnings.catch_warnings(),
            ):
                sys.settrace(self._global)
                try:
                    exec(self.code, namespace)
                finally:
                    sys.settrace(previous_trace)
        except _Stopped:
            self.capped = True
        except Exception as exc:  # the snippet's own failure: reported, not raised
            self.error = f"{type(exc).__name__}: {exc}"
        self.seconds = time.perf_counter() - start
        if self.sample_at is not None:
            self.samples.append((self.lines + 1, reachable_graph_nodes()))  # the final sample
        self.output = buffer.getvalue()
        namespace.clear()
        torch.set_grad_enabled(grad_mode)
        torch.set_default_dtype(dtype)
        torch.set_num_threads(threads)
        gc.collect()
        # What the run leaves behind (e.g. the parameter <-> .grad cycle that backward(create_graph=True) makes
        # through C++, which gc cannot break) must not count in the next run: hide it from gc.get_objects().
        gc.freeze()
        return self

    @property
    def peak(self) -> int:
        return max((nodes for _, nodes in self.samples), default=0)

    def peak_until(self, line: int) -> int:
        return max((nodes for at, nodes in self.samples if at <= line), default=0)


def sample_points(total: int, salt: str) -> set[int]:
    """SAMPLES line indices in 1..total, one per equal slot at a deterministic random offset."""
    if total <= SAMPLES:
        return set(range(1, total + 1))
    rng = random.Random(salt)
    width = total / SAMPLES
    return {min(total, 1 + int(i * width + rng.random() * width)) for i in range(SAMPLES)}


def run_sampled(
    tree: ast.Module, filename: str, steps: int | None, batches: int | None = None
) -> Run:
    """Count the run's line events, then run it again sampling graph size at SAMPLES points."""
    if steps is not None:
        steps_line(tree).value.value = steps
    if batches is not None:
        steps_line(tree, "BATCHES").value.value = batches
    code = compile(tree, filename, "exec")
    counted = Run(code, filename, None).execute()
    total = min(counted.lines, LINE_CAP)
    return Run(code, filename, sample_points(total, f"{filename}:{steps}")).execute()


_warm = False


def warm_up() -> None:
    """Run a few plain training steps untraced, once per process: torch's first optimizer steps
    import modules lazily, which under sys.settrace costs seconds and is not the snippet's."""
    global _warm
    if _warm:
        return
    model = torch.nn.Linear(2, 1)
    for opt in (
        torch.optim.SGD(model.parameters(), lr=0.1),
        torch.optim.Adam(model.parameters()),
        torch.optim.AdamW(model.parameters()),
    ):
        loss = model(torch.randn(3, 2)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    _warm = True


def measure(path: str | Path) -> dict:
    """Label one file: {label, peak_n, peak_2n, unit, steps, method, seconds, lines, error, ...}.

    A snippet that raises is still labelled from the samples taken before it failed; `error`
    says what it raised."""
    path = Path(path).resolve()
    warm_up()
    gc.collect()
    gc.freeze()  # what exists now (torch, the caller) is not the snippet's: keep it out of the scans
    try:
        return _measure(path)
    finally:
        gc.unfreeze()


def _measure(path: Path) -> dict:
    source = path.read_text(encoding="utf-8")
    filename = str(path)
    started = time.perf_counter()
    tree = ast.parse(source, filename)
    assign = steps_line(tree)
    result: dict = {}
    if assign is None:
        run = run_sampled(tree, filename, None)
        result.update(
            method="progress",
            steps=None,
            unit=MIN_UNIT,
            peak_n=run.peak_until(run.lines // 2),
            peak_2n=run.peak,
            capped=run.capped,
            error=run.error,
            lines=run.lines,
        )
    else:
        n = assign.value.value
        inner = steps_line(tree, "BATCHES")
        b = inner.value.value if inner is not None else None
        one = run_sampled(ast.parse(source, filename), filename, 1, 1 if b is not None else None)
        unit = MIN_UNIT if one.error else max(MIN_UNIT, one.peak)
        run_n = run_sampled(ast.parse(source, filename), filename, n)
        run_2n = run_sampled(ast.parse(source, filename), filename, 2 * n)
        runs = [run_n, run_2n]
        if b is not None:
            run_2b = run_sampled(ast.parse(source, filename), filename, n, 2 * b)
            runs.append(run_2b)
            result.update(peak_2b=run_2b.peak, batches=b)
        result.update(
            method="STEPS+BATCHES" if b is not None else "STEPS",
            steps=n,
            unit=unit,
            peak_n=run_n.peak,
            peak_2n=run_2n.peak,
            capped=any(r.capped for r in runs),
            error=next((r.error for r in runs if r.error), None),
            lines=run_2n.lines,
            # the progress rule on the 2N run, for comparison only
            progress_label=decide(run_2n.peak_until(run_2n.lines // 2), run_2n.peak, MIN_UNIT),
        )
    result["label"] = decide(result["peak_n"], result["peak_2n"], result["unit"])
    if "peak_2b" in result and result["label"] == "clean":
        result["label"] = decide(result["peak_n"], result["peak_2b"], result["unit"])
    result["seconds"] = round(time.perf_counter() - started, 2)
    return result


def decide(peak_n: int, peak_2n: int, unit: int) -> str:
    grows = peak_2n >= RATIO * peak_n and peak_2n - peak_n >= UNITS * unit
    return "leak" if grows else "clean"


def expected_label(path: Path) -> str:
    return "leak" if path.name.startswith("leak_") else "clean"


def default_files() -> list[Path]:
    return [path for folder in FOLDERS for path in sorted(folder.glob("*.py"))]


def write_labels(results: dict[Path, dict]) -> None:
    by_folder: dict[Path, dict[Path, dict]] = {}
    for path, result in results.items():
        by_folder.setdefault(path.parent, {})[path] = result
    for folder, entries in by_folder.items():
        target = folder / LABELS
        labels = json.loads(target.read_text(encoding="utf-8")) if target.exists() else {}
        for path, result in entries.items():
            labels[path.name] = {
                key: result[key]
                for key in ("label", "peak_n", "peak_2n", "peak_2b", "unit", "method")
                if key in result
            }
        labels = {name: labels[name] for name in sorted(labels) if (folder / name).exists()}
        target.write_text(json.dumps(labels, indent=1) + "\n", encoding="utf-8")


def _measure_job(path: str) -> tuple[str, dict]:
    return path, measure(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "files", nargs="*", type=Path, help="snippets (default: corpus/ and benign/)"
    )
    parser.add_argument("--write", action="store_true", help="record the labels in labels.json")
    parser.add_argument("--check", action="store_true", help="exit 1 if a name prefix disagrees")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="worker processes (default 1)")
    args = parser.parse_args(argv)
    files = [path.resolve() for path in args.files] or default_files()
    started = time.perf_counter()
    results: dict[Path, dict] = {}
    if args.jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(args.jobs) as pool:
            jobs = pool.map(_measure_job, [str(path) for path in files])
            pairs = ((Path(name), result) for name, result in jobs)
            for path, result in pairs:
                results[path] = result
                _print(path, result)
    else:
        for path in files:
            results[path] = measure(path)
            _print(path, results[path])
    print(f"{len(files)} files in {time.perf_counter() - started:.1f} s")
    if args.write:
        write_labels(results)
    wrong = [
        path
        for path, result in results.items()
        if result["label"] != expected_label(path) or result["error"]
    ]
    if args.check and wrong:
        print("label disagrees with the name:")
        for path in wrong:
            result = results[path]
            print(
                f"  {path.name}: {result['label']} (peak_n {result['peak_n']}, peak_2n {result['peak_2n']},"
                f" unit {result['unit']}){' ' + result['error'] if result['error'] else ''}"
            )
        return 1
    return 0


def _print(path: Path, result: dict) -> None:
    extra = []
    if result.get("progress_label") and result["progress_label"] != result["label"]:
        extra.append(f"progress rule says {result['progress_label']}")
    if result["capped"]:
        extra.append("stopped at the line cap")
    if result["error"]:
        extra.append(result["error"])
    mark = (
        "" if result["label"] == expected_label(path) else "  <-- name says " + expected_label(path)
    )
    inner = f" peak_2b {result['peak_2b']}" if "peak_2b" in result else ""
    print(
        f"{result['label']:5} {path.parent.name}/{path.name}: peak_n {result['peak_n']} peak_2n"
        f" {result['peak_2n']}{inner} unit {result['unit']} [{result['method']}] {result['lines']} lines"
        f" {result['seconds']}s"
        f"{'; ' + '; '.join(extra) if extra else ''}{mark}",
        flush=True,
    )


if __name__ == "__main__":
    sys.exit(main())
