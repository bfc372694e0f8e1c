"""A test that signals a process it started starts it as from a terminal (`terminal_signals`).

Started from a background shell, the suite ignores SIGINT, and every child it starts inherits
that; grill then keeps Ctrl-C ignored, as it must for `nohup grill`. `grill lint --watch`'s test
once sent Ctrl-C to a child started without `as_from_a_terminal`, and hung whenever the suite
ran in the background. This keeps the whole class out rather than that instance: in a module
that sends a process any signal it could have inherited ignored (anything but SIGKILL), every
`subprocess.Popen` passes `preexec_fn=as_from_a_terminal`. The benchmarks are scripts, not
tests (`bench_stops.py` starts its busy-looping load plainly), and are left out.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).parent
SENDERS = {"send_signal", "kill", "killpg"}
NEVER_IGNORED = {"SIGKILL", "9"}


def signals_sent(tree: ast.AST) -> list[ast.Call]:
    """The calls that send a process a signal other than SIGKILL (`p.send_signal(s)`,
    `os.kill(pid, s)`, `os.killpg(group, s)`)."""
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in SENDERS
            and node.args
        ):
            sent = ast.unparse(node.args[-1]).rsplit(".", 1)[-1]
            if sent not in NEVER_IGNORED:
                found.append(node)
    return found


def starts_without_defaults(tree: ast.AST) -> list[ast.Call]:
    """The `subprocess.Popen(...)` calls that leave the child the suite's own dispositions."""
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and ast.unparse(node.func).endswith("Popen")
        and not any(
            keyword.arg == "preexec_fn" and ast.unparse(keyword.value) == "as_from_a_terminal"
            for keyword in node.keywords
        )
    ]


def offenders(source: str) -> list[int]:
    """Lines of the Popen calls a module must fix: it signals a process it may have started
    with the suite's ignored signals."""
    tree = ast.parse(source)
    if not signals_sent(tree):
        return []
    return [call.lineno for call in starts_without_defaults(tree)]


def test_every_process_a_test_signals_starts_as_from_a_terminal():
    found = [
        f"{path.relative_to(TESTS)}:{line}"
        for path in sorted(TESTS.rglob("*.py"))
        if "bench" not in path.relative_to(TESTS).parts
        for line in offenders(path.read_text(encoding="utf-8"))
    ]
    assert not found, (
        "start the process with preexec_fn=as_from_a_terminal (terminal_signals.py):\n"
        + "\n".join(found)
    )


def test_the_rule_sees_a_ctrl_c_sent_to_a_child_started_plainly():
    """What the --watch test was: a Popen without the defaults, then Ctrl-C."""
    source = (
        "p = subprocess.Popen(['grill', 'lint', '--watch'])\n"
        "p.send_signal(signal.SIGINT)\n"
        "q = subprocess.Popen(['grill'], preexec_fn=as_from_a_terminal)\n"
        "os.kill(q.pid, signal.SIGHUP)\n"
    )
    assert offenders(source) == [1]


def test_sigkill_needs_no_defaults_it_cannot_be_ignored():
    source = "p = subprocess.Popen(['grill'])\np.send_signal(signal.SIGKILL)\nos.kill(p.pid, 9)\n"
    assert offenders(source) == []
