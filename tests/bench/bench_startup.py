"""Time from starting `grill` to the home screen painted in a terminal (goal: under 1 s).

Runs the real entry point in a pseudo-terminal and stops the clock when the home screen's
"Packs" heading arrives on the terminal. Printed beside it, measured the same way in the same
run: a bare interpreter start, and a minimal Textual app painting one label, which is the floor
any Textual UI pays on this machine.
"""

from __future__ import annotations

import os
import pty
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GRILL = Path(sys.executable).parent / "grill"
RUNS = 5
MARKER = b"Packs"
MINIMAL_APP = (
    "from textual.app import App\n"
    "from textual.widgets import Label\n"
    "class Minimal(App):\n"
    "    def compose(self):\n"
    "        yield Label('Packs')\n"
    "Minimal().run()\n"
)


def time_to_marker(argv: list[str], marker: bytes | None, env: dict[str, str]) -> float:
    return painted(argv, marker, env)[0]


def painted(argv: list[str], marker: bytes | None, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds from starting `argv` in a pseudo-terminal to `marker` on it (to its
    exit when None): the CPU time, the program's own, stretches much less than the wall time
    when other work shares the cores."""
    leader, follower = pty.openpty()
    os.set_blocking(leader, False)
    env = {**env, "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "30"}
    started = time.perf_counter()
    process = subprocess.Popen(
        argv, stdin=follower, stdout=follower, stderr=follower, env=env, cwd=ROOT
    )
    os.close(follower)
    seen = b""
    try:
        while True:
            ready, _, _ = select.select([leader], [], [], 10)
            if not ready:
                raise TimeoutError(f"{argv[0]} painted nothing in 10 s")
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                if marker is None:
                    break
                raise RuntimeError(f"{argv[0]} exited before painting: {seen[-400:]!r}")
            seen += chunk
            if marker is not None and marker in seen:
                break
        return time.perf_counter() - started, cpu_seconds(process.pid)
    finally:
        process.kill()
        process.wait()
        os.close(leader)


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a running process, or 0 once it has been reaped."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except FileNotFoundError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def returning_user(home: str) -> None:
    """A history whose user has closed the first-run screen, so home is what paints first."""
    sys.path.insert(0, str(ROOT))
    from app.progress.history import History

    with History.open(Path(home) / "history.db") as history:
        history.set_setting("welcomed", True)


def main() -> None:
    with tempfile.TemporaryDirectory() as home:
        returning_user(home)
        env = {**os.environ, "GRILL_HOME": home}
        bare = [
            time_to_marker([sys.executable, "-c", "print('x')"], None, env) for _ in range(RUNS)
        ]
        minimal = [
            time_to_marker([sys.executable, "-c", MINIMAL_APP], MARKER, env) for _ in range(RUNS)
        ]
        painted = [time_to_marker([str(GRILL)], MARKER, env) for _ in range(RUNS)]
    print(f"runs: {RUNS} (2 shared cores, so figures are noisy)")
    print(f"{'':28}{'median':>9}{'min':>9}{'max':>9}")
    rows = (
        ("python start", bare),
        ("minimal Textual app painted", minimal),
        ("grill -> home painted", painted),
    )
    for label, values in rows:
        print(
            f"{label:28}{statistics.median(values):>8.3f}s{min(values):>8.3f}s{max(values):>8.3f}s"
        )
    ratio = statistics.median(painted) / statistics.median(minimal)
    goal = "met" if statistics.median(painted) < 1.0 else "NOT met"
    print(f"grill / minimal Textual app: {ratio:.2f}x; goal < 1 s to first paint: {goal}")


if __name__ == "__main__":
    main()
