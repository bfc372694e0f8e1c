"""Warnings a snippet triggers are shown at the candidate's own line, never with grill's
paths or torch's internal notes, and they cannot flood the output."""

from __future__ import annotations

from sandbox_witness import SNIPPET

from checkers.measure import warnings_shown

GRADE = "checkers.measure.grade:grade_job"

SCALAR_OF_GRAPH = """
import torch
model = torch.nn.Linear(8, 1)
running = 0
for step in range(8):
    loss = model(torch.randn(16, 8)).pow(2).mean()
    loss.backward()
    running += loss
    print(float(running))
"""


def assert_shows_only_the_candidates_line(output: str, line: int) -> None:
    assert f"line {line}: UserWarning: Converting a tensor with requires_grad=True" in output
    assert output.count("UserWarning") == 1, "Python's filters show a warning once"
    for internal in ("checkers", ".py:", "Triggered internally", "result = func("):
        assert internal not in output


def test_a_torch_warning_under_the_grader_names_the_candidates_line(sandbox):
    outcome = sandbox.run(
        GRADE, {"source": SCALAR_OF_GRAPH, "seconds": 60, "steps": 8, "device": "cpu"}
    )
    assert outcome.status == "ok"
    assert_shows_only_the_candidates_line(outcome.output, 9)


def test_a_torch_warning_in_a_plain_run_names_the_candidates_line(sandbox):
    outcome = sandbox.run(SNIPPET, {"source": SCALAR_OF_GRAPH})
    assert outcome.status == "ok"
    assert_shows_only_the_candidates_line(outcome.output, 9)


def test_a_warning_with_no_candidate_frame_has_no_location():
    assert (
        warnings_shown.format_warning(
            "slow path (Triggered internally at /__w/pytorch/aten/x.cpp:12.)",
            RuntimeWarning,
            None,
        )
        == "RuntimeWarning: slow path\n"
    )


def test_distinct_warnings_every_step_stop_after_a_budget(sandbox):
    source = (
        "import torch\nfor n in range(1, 400):\n"
        "    torch.nn.functional.mse_loss(torch.zeros(n, 1), torch.zeros(n))\n"
        "result = 'done'"
    )
    outcome = sandbox.run(SNIPPET, {"source": source})
    assert outcome.status == "ok" and outcome.result == {"result": "done"}
    assert outcome.output.endswith(warnings_shown.NOTE)
    assert outcome.output.count(warnings_shown.NOTE) == 1
    assert len(outcome.output) <= warnings_shown.WARNING_CHARS + len(warnings_shown.NOTE)
    assert outcome.output.startswith("line 3: UserWarning: Using a target size")


def test_an_exception_python_ignores_is_shown_in_one_line_at_the_candidates_line(sandbox):
    source = (
        "def g():\n    try:\n        yield 1\n    finally:\n        raise ValueError('late')\n"
        "it = g()\nnext(it)\nit = None\nresult = 'went on'"
    )
    outcome = sandbox.run(SNIPPET, {"source": source})
    assert outcome.result == {"result": "went on"}
    assert outcome.output == "line 8: Exception ignored: ValueError: late\n"


def test_anomaly_modes_forward_stack_keeps_only_the_candidates_frames(sandbox):
    source = (
        "import torch\ntorch.autograd.set_detect_anomaly(True)\n"
        "model = torch.nn.Linear(1, 1)\nfor step in range(4):\n"
        "    z = model(torch.ones(1, 1)) * 0 - 1\n"
        "    y = z.sqrt().sum()\n    y.backward()\n"
    )
    outcome = sandbox.run(
        GRADE,
        {
            "source": source,
            "seconds": 60,
            "steps": 4,
            "device": "cpu",
            "filename": "/home/me/loop.py",
        },
    )
    assert (outcome.status, outcome.error.line) == ("error", 7)
    assert outcome.output == (
        "line 7: UserWarning: Error detected in SqrtBackward0. Traceback of forward call that"
        ' caused the error:\n  File "/home/me/loop.py", line 6, in <module>\n'
        "    y = z.sqrt().sum()\n"
    )
