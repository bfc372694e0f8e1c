"""What grading costs over the snippet's own run: each file is run plainly (`exec`) and graded
(`checkers.measure.grade.grade_job`, what the sandbox child runs), each in a forked child of a
process that warmed up like the sandbox's worker (one torch thread, as there), and the child's
CPU seconds are compared.

    .venv/bin/python tests/bench/bench_grade_cost.py [--checkout DIR] [--profile N] [FILE ...]
    .venv/bin/python tests/bench/bench_grade_cost.py --against /work/main [FILE ...]

Each figure is the least of `--repeat` runs. `--checkout DIR` grades with another checkout's
`checkers`; `--against DIR` grades each file with DIR's `checkers` and with this checkout's
(or `--checkout`'s), one right after the other, and prints how many times less CPU the second
takes: the figure before a change beside the one after, under the same load. `--profile N`
prints the graded runs' N costliest functions (cProfile, cumulative over all files) and the
policy's share of their time; `--judgement` grades each file again with the policy judging no
object, for the CPU its judgement costs. Without files: a fixed sample of the corpus and the
real-code corpus. No sandbox, no limits: a bench of grill's own cost, not of isolation.
"""

from __future__ import annotations

import argparse
import gc
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GRADER = ROOT / "tests" / "grader"
SAMPLE = [
    *sorted((GRADER / "corpus").glob("*.py"))[::20],
    *(
        GRADER / "realcode" / name
        for name in ("examples_mnist.py", "d2l_rnn_scratch.py", "examples_vae.py")
    ),
]
SECONDS = 60.0


def child_cpu(run: object, *args: object) -> tuple[float, str]:
    """Run `run(*args)` in a forked child; its CPU seconds (user + system) and how it ended."""
    pid = os.fork()
    if pid == 0:  # the child: its exit status says how the run ended; its output is dropped
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        sys.argv = [str(args[1])]  # a script reads its own arguments, not the bench's
        code = 0
        try:
            run(*args)  # type: ignore[operator]
        except BaseException:  # noqa: BLE001 - a failed run is still a figure
            code = 3
        os._exit(code)
    _, status, usage = os.wait4(pid, 0)
    ended = "ok" if os.waitstatus_to_exitcode(status) == 0 else "failed"
    return usage.ru_utime + usage.ru_stime, ended


def least(repeat: int, run: object, *args: object) -> tuple[float, str]:
    """The least CPU of `repeat` runs (the machine is shared: the least is the least noisy)."""
    runs = [child_cpu(run, *args) for _ in range(max(repeat, 1))]
    return min(seconds for seconds, _ in runs), runs[-1][1]


def plain(source: str, filename: str) -> None:
    exec(compile(source, filename, "exec"), {"__name__": "__main__"})


def graded(source: str, filename: str, profile_to: str | None) -> None:
    import cProfile

    from checkers.measure.grade import grade_job

    profiler = cProfile.Profile() if profile_to else None

    def finish(_result: object) -> None:  # the budget ran out: measured, end the child here
        done()

    def done() -> None:
        if profiler is not None and profile_to is not None:
            profiler.disable()
            profiler.dump_stats(profile_to)
        os._exit(0)

    payload = {"source": source, "filename": filename, "seconds": SECONDS, "own_file": True}
    if profiler is not None:
        profiler.enable()
    grade_job(payload, finish)  # type: ignore[arg-type]
    done()


def unjudged(source: str, filename: str, profile_to: str | None) -> None:
    """`graded`, with the policy judging no object (`closed_reason` says every one is open;
    stand-ins still replace what they stand for): the policy's judgement costs the difference,
    a CPU figure that another process's load on the machine barely moves."""
    from checkers.policy import guards, identity

    def open_to_all(_value: object) -> None:
        return None

    identity.closed_reason = guards.closed_reason = open_to_all  # type: ignore[assignment]
    graded(source, filename, profile_to)


def policy_us(rounds: int = 10_000) -> float:
    """Microseconds `admit` (stand-ins, then `closed_reason`) takes per object, over the mix
    a training loop hands it most (bound C methods, torch functions, torch's methods, the
    snippet's own objects, lists, modules, optimizers); the policy pays it on every attribute
    read and call."""
    import torch

    from checkers.policy import identity
    from checkers.policy.refusal import OWN_CLASSES

    class Own:
        pass

    OWN_CLASSES.add(Own)
    items: list[object] = []
    model = torch.nn.Linear(2, 2)
    values = [
        items.append,
        {}.get,
        torch.zeros(1).detach,
        torch.mm,
        torch.tensor,
        isinstance,
        torch.nn.Module.parameters,
        Own(),
        items,
        model,
        torch.optim.SGD(model.parameters(), lr=0.1),
        model.parameters,
    ]
    judge = identity.admit
    spans = []
    for _ in range(5):  # the least of five: the machine is shared
        started = time.process_time()
        for _ in range(rounds):
            for value in values:
                judge(value)
        spans.append(time.process_time() - started)
    return min(spans) / (rounds * len(values)) * 1e6


def start(checkout: Path) -> None:
    """Load `checkout`'s grill as the sandbox's warm worker starts
    (`checkers.sandbox.worker.warm`): one intra-op thread (several spin, and their CPU time is
    noise), the compiler kept out, grill warmed up; then work in a fresh folder."""
    sys.path.insert(0, str(checkout.resolve()))
    os.chdir(tempfile.mkdtemp(prefix="bench-grade-cost-"))
    import torch

    from checkers.measure import grade
    from checkers.sandbox import eager_dynamo

    eager_dynamo.install(torch)
    torch.set_num_threads(1)
    grade.warm()
    gc.collect()
    gc.freeze()


def serve(repeat: int) -> int:
    """One side of `--against`: a file's path per line in, its plain and graded CPU out."""
    for line in sys.stdin:
        path = line.strip()
        source = Path(path).read_text()
        plain_s, _ = least(repeat, plain, source, path)
        graded_s, ended = least(repeat, graded, source, path, None)
        print(plain_s, graded_s, ended, flush=True)
    return 0


def side_by_side(args: argparse.Namespace) -> int:
    """Each file graded by `--against` (before) and by `--checkout` (after), one right after
    the other, so both meet the same load on a shared machine."""
    sides = [
        subprocess.Popen(
            [sys.executable, __file__, "--serve", "--checkout", str(checkout)]
            + ["--repeat", str(args.repeat)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        for checkout in (args.against, args.checkout)
    ]
    print(f"before: {args.against.resolve()}\nafter: {args.checkout.resolve()}")
    print(f"{'file':48} {'plain s':>8} {'before s':>9} {'after s':>8} {'less':>6}")
    totals = [0.0, 0.0, 0.0]
    for path in args.files:
        figures = []
        for side in sides:
            assert side.stdin is not None and side.stdout is not None
            side.stdin.write(f"{path}\n")
            side.stdin.flush()
            plain_s, graded_s, ended = side.stdout.readline().split()
            figures.append((float(plain_s), float(graded_s), ended))
        row = [min(f[0] for f in figures), figures[0][1], figures[1][1]]
        totals = [total + value for total, value in zip(totals, row, strict=True)]
        note = "" if all(f[2] == "ok" for f in figures) else " (a run failed)"
        print(
            f"{path.name[:48]:48} {row[0]:8.2f} {row[1]:9.2f} {row[2]:8.2f} "
            f"{row[1] / max(row[2], 1e-3):6.2f}{note}"
        )
    for side in sides:
        assert side.stdin is not None
        side.stdin.close()
        side.wait()
    count = len(args.files)
    print(
        f"{'total (' + str(count) + ' files)':48} {totals[0]:8.2f} {totals[1]:9.2f} "
        f"{totals[2]:8.2f} {totals[1] / max(totals[2], 1e-3):6.2f}"
    )
    print(
        f"graded CPU per file: before {totals[1] / count:.3f} s, after {totals[2] / count:.3f} s;"
        f" over plain: before {(totals[1] - totals[0]) / count:.3f} s,"
        f" after {(totals[2] - totals[0]) / count:.3f} s"
    )
    return 0


def policy_seconds(stats: pstats.Stats) -> tuple[float, float]:
    """(seconds the policy spent, seconds in all) in the profiled graded runs: the policy's own
    functions (`checkers/policy/`) and the C functions they call themselves, except the callee
    a guarded call runs for the snippet; the RestrictedPython compile whole, but for the
    grader's own rewrite it applies (`checkers.measure.instrument`)."""
    table = stats.stats  # type: ignore[attr-defined]  # (pstats keeps it untyped)

    def policy(where: tuple[str, int, str]) -> bool:
        return "/checkers/policy/" in where[0]

    spent = 0.0
    for where, (_, _, own, whole, callers) in table.items():
        if where[2] == "compile_candidate" and policy(where):
            spent += whole
        elif "/checkers/measure/" in where[0]:  # the grader's own rewrite, inside the compile
            spent -= sum(
                paid[3] for caller, paid in callers.items() if caller[2] == "compile_candidate"
            )
        elif policy(where) and not where[0].endswith("transformer.py"):
            spent += own
        elif where[0] == "~":  # a C function: the part its policy callers paid
            spent += sum(
                paid[2]
                for caller, paid in callers.items()
                if policy(caller) and caller[2] != "guarded_call"
            )
    return spent, stats.total_tt  # type: ignore[attr-defined]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--checkout", type=Path, default=ROOT)
    parser.add_argument("--profile", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each; the least CPU")
    parser.add_argument(
        "--judgement", action="store_true", help="also graded without the policy's judgement"
    )
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--against", type=Path, help="a checkout graded beside --checkout")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.files = [path.resolve() for path in args.files] or SAMPLE
    if args.against is not None:
        return side_by_side(args)
    start(args.checkout)
    if args.serve:
        return serve(args.repeat)
    profiles: list[str] = []
    total_plain = total_graded = total_unjudged = 0.0
    print(f"checkout: {args.checkout.resolve()}")
    print(f"{'file':48} {'plain s':>8} {'graded s':>9} {'ratio':>6}")
    for path in args.files:
        source = path.read_text()
        profile_to = f"graded-{len(profiles)}.prof" if args.profile else None
        plain_s, plain_end = least(args.repeat, plain, source, str(path))
        graded_s, graded_end = least(args.repeat, graded, source, str(path), profile_to)
        if args.judgement:
            total_unjudged += least(args.repeat, unjudged, source, str(path), None)[0]
        if profile_to is not None and Path(profile_to).exists():
            profiles.append(profile_to)
        total_plain += plain_s
        total_graded += graded_s
        note = "" if (plain_end, graded_end) == ("ok", "ok") else f" ({plain_end}/{graded_end})"
        print(
            f"{path.name[:48]:48} {plain_s:8.2f} {graded_s:9.2f} "
            f"{graded_s / max(plain_s, 1e-3):6.2f}{note}"
        )
    count = len(args.files)
    print(
        f"{'total (' + str(count) + ' files)':48} {total_plain:8.2f} {total_graded:9.2f} "
        f"{total_graded / max(total_plain, 1e-3):6.2f}"
    )
    print(
        f"graded CPU per file: {total_graded / count:.3f} s; over plain: "
        f"{(total_graded - total_plain) / count:.3f} s"
    )
    if args.judgement:
        judged = total_graded - total_unjudged
        print(
            f"the policy's judgement: {judged:.2f} of {total_graded:.2f} s graded "
            f"({judged / max(total_graded, 1e-9):.1%}; graded without it: {total_unjudged:.2f} s)"
        )
    print(f"policy: {policy_us():.2f} us per object judged (a snippet's usual mix)")
    if profiles:
        stats = pstats.Stats(*profiles)
        spent, whole = policy_seconds(stats)
        print(f"policy's share of the profiled graded runs: {spent:.2f} of {whole:.2f} s", end="")
        print(f" ({spent / max(whole, 1e-9):.1%})")
        stats.sort_stats("tottime").print_stats(args.profile)
        stats.sort_stats("cumulative").print_stats(args.profile)
    return 0


if __name__ == "__main__":
    started = time.perf_counter()
    code = main()
    print(f"wall: {time.perf_counter() - started:.1f} s")
    sys.exit(code)
