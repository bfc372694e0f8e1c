"""Which loop is the training step, and where the sampling hooks go."""

import ast

import pytest

from checkers.instrument import DONE_HOOK, STEP_HOOK, StopGrading, instrument, training_loops


def chosen_lines(source: str) -> list[int]:
    return [loop.lineno for loop in training_loops(ast.parse(source))]


def hooked(source: str) -> str:
    return ast.unparse(instrument(ast.parse(source)))


def test_a_flat_loop_with_backward_is_the_training_loop():
    source = "for i in range(9):\n    loss = f()\n    loss.backward()\n"
    assert chosen_lines(source) == [1]


def test_with_epochs_and_batches_the_batch_loop_is_sampled():
    source = (
        "for epoch in range(3):\n"
        "    for x in data:\n"
        "        loss = f(x)\n"
        "        loss.backward()\n"
        "        opt.step()\n"
    )
    assert chosen_lines(source) == [2]


def test_a_per_parameter_loop_inside_the_step_is_not_the_step():
    source = (
        "for x in data:\n"
        "    loss = f(x)\n"
        "    loss.backward()\n"
        "    for p in params:\n"
        "        p.data -= 0.1 * p.grad\n"
    )
    assert chosen_lines(source) == [1]


def test_a_per_timestep_loop_inside_the_step_is_not_the_step():
    source = (
        "while step < 100:\n"
        "    for t in range(seq_len):\n"
        "        out, h = cell(x[t], h)\n"
        "    loss = out.sum()\n"
        "    opt.zero_grad()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
    )
    assert chosen_lines(source) == [1]


def test_an_environment_step_loop_inside_the_episode_is_not_the_step():
    """RL: `env.step()` per timestep, backward() once per episode: the episode is the step."""
    source = (
        "for episode in range(80):\n"
        "    for t in range(20):\n"
        "        log_probs.append(act(state))\n"
        "        state, reward, done = env.step(action)\n"
        "    loss = -(torch.stack(log_probs) * ret).sum()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
    )
    assert chosen_lines(source) == [1]


def test_without_backward_in_a_loop_the_step_call_marks_it():
    """LBFGS hands a closure that calls backward() to `opt.step(closure)`."""
    source = (
        "def closure():\n"
        "    f().backward()\n"
        "for i in range(9):\n"
        "    opt.step(closure)\n"
    )
    assert chosen_lines(source) == [3]


def test_a_loop_calling_a_snippet_function_that_trains_is_the_step():
    source = (
        "def update(x):\n"
        "    helper(x)\n"
        "def helper(x):\n"
        "    f(x).backward()\n"
        "for epoch in range(2):\n"
        "    for x in data:\n"
        "        update(x)\n"
    )
    assert chosen_lines(source) == [6]


def test_the_policy_rewritten_attribute_call_still_counts():
    """After RestrictedPython, `loss.backward()` reads `_getattr_(loss, 'backward')()`."""
    source = "for x in data:\n    _getattr_(loss, 'backward')()\nfor y in other:\n    pass\n"
    assert chosen_lines(source) == [1]


def test_without_backward_or_step_the_outermost_loops_are_sampled():
    source = "for a in range(3):\n    for b in range(4):\n        pass\nwhile x:\n    x -= 1\n"
    assert chosen_lines(source) == [1, 4]


def test_the_step_hook_is_the_first_statement_of_each_iteration():
    tree = instrument(ast.parse("for i in range(3):\n    loss = f()\n    loss.backward()\n"))
    first = tree.body[0].body[0]
    assert ast.unparse(first) == f"{STEP_HOOK}()"
    assert first.lineno == 1


def test_a_function_local_loop_is_scanned_before_its_frame_returns():
    source = (
        "def train():\n"
        "    losses = []\n"
        "    for epoch in range(2):\n"
        "        for x in data:\n"
        "            losses.append(f(x))\n"
        "            f(x).backward()\n"
        "    return losses\n"
    )
    body = instrument(ast.parse(source)).body[0].body
    assert [ast.unparse(s) for s in body[2:]] == [f"{DONE_HOOK}()", "return losses"]


def test_candidate_line_numbers_survive_instrumentation():
    source = "x = 1\nfor i in range(3):\n    y = i\n    z.backward()\nraise ValueError\n"
    code = compile(instrument(ast.parse(source)), "<snippet>", "exec")
    namespace = {STEP_HOOK: lambda: None, DONE_HOOK: lambda: None, "z": type("Z", (), {"backward": lambda self: None})()}
    with pytest.raises(ValueError) as raised:
        exec(code, namespace)
    assert raised.traceback[-1].lineno == 4  # pytest counts from 0: line 5 of the snippet


def test_stop_grading_passes_through_except_exception_and_is_marked_for_the_sandbox():
    assert StopGrading.grill_control is True
    with pytest.raises(StopGrading):
        try:
            raise StopGrading
        except Exception:
            pytest.fail("a candidate's `except Exception` must not swallow StopGrading")
