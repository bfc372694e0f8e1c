"""Every corpus snippet grades as its measured label says, and every shipped code task holds:
its starter fails as the card says, its solution passes, and a fix that stops the leak by
breaking the task (training nothing, training less, detaching before backward) is `wrong`.

A corpus file's name starts with its label (`leak_...py`, `clean_...py`), measured by
`tests/grader/labeler.py` without grill's own probes; its first line says what it shows.
The process's shared warm sandbox serves them all, as it serves `grill lint --run`.
"""

import ast
import functools
from pathlib import Path

import pytest
from pace import bound
from pack_loading import shipped_library

from app.cli import main
from checkers.api import grade_source, grade_task, shared_sandbox
from checkers.sandbox import Sandbox
from checkers.verdict import Verdict
from questions.lint import lint_paths

ROOT = Path(__file__).resolve().parents[2]
CORPUS = sorted((Path(__file__).parent / "corpus").glob("*.py"))
BENIGN = sorted((Path(__file__).parent / "benign").glob("*.py"))
SHIPPED = shipped_library().cards
TASKS = [card.card for card in SHIPPED if card.card.code_task]


BUDGET_S = bound(2.0)
"""Every labelled file ends well within it (the slowest takes about a second quiet): 20 s on a
quiet machine, more on a busy one, so that no run is cut short by the machine's pace."""
STEPS_CAP = 1000
"""Five times the longest finite snippet's 200 optimizer steps: it stops the endless loops,
which would otherwise run for the whole time budget, and changes no other run."""


@pytest.fixture
def sandbox() -> Sandbox:
    return shared_sandbox("cpu")


@functools.cache
def _graded(source: str, filename: str) -> Verdict:
    return grade_source(
        source, filename=filename, sandbox=shared_sandbox("cpu"), seconds=BUDGET_S, steps=STEPS_CAP
    )


def graded(path: Path) -> Verdict:
    """The verdict of a labelled file, graded once per process however many tests read it
    (its label, its message and hint): the same text, the same budget, the same verdict."""
    return _graded(path.read_text(encoding="utf-8"), str(path))


def test_the_corpus_covers_both_labels_widely():
    kinds = [path.name.split("_")[0] for path in CORPUS]
    assert set(kinds) == {"leak", "clean"}
    assert min(kinds.count("leak"), kinds.count("clean")) >= 30


ONE_RUN_CANNOT_TELL = {
    "clean_last_ten_steps_kept.py": "a fixed number of graphs kept just before the end looks, in one"
    " run, like a late phase that keeps every step's graph (leak_late_prediction_ensemble.py);"
    " the labeler tells them apart by doubling the run, grill errs towards the leak",
}


@pytest.mark.parametrize("path", CORPUS, ids=[path.stem for path in CORPUS])
def test_corpus_snippet_gets_its_measured_label(path):
    if path.name in ONE_RUN_CANNOT_TELL:
        pytest.xfail(ONE_RUN_CANNOT_TELL[path.name])
    expected = path.name.split("_")[0]
    verdict = graded(path)
    assert verdict.verdict == expected, verdict.message or verdict.error
    if expected == "leak":
        assert verdict.message and verdict.hint
    else:
        assert verdict.retained == ()


@pytest.mark.parametrize("path", BENIGN, ids=[path.stem for path in BENIGN])
def test_ordinary_training_code_is_never_refused_and_grades_clean(path):
    verdict = graded(path)
    assert verdict.verdict == "clean", verdict.message or verdict.error


EXPLAINED = {
    "leak_trainer_metrics": (
        "`trainer.metrics['loss']` holds 100 tensors",
        "(line 24)",
        "`loss.detach()`",
    ),
    "leak_records_dicts": ("`records` holds 100 tensors", "(line 13)", ".item()"),
    "leak_generator_meter": (
        "`m.<locals>.total` chains the graphs of 100 steps",
        "(line 10)",
        "to `total`",
    ),
    "leak_train_returns_losses": ("`history` holds 30 tensors", "(line 14)", "`loss.detach()`"),
    "leak_create_graph_norms": ("`grad_norms` holds 80 tensors", "(line 17)", "create_graph=True"),
    "leak_forward_hook_closure": ("`model.1._forward_hooks[", "(line 10)", "`output.detach()`"),
    "leak_rnn_hidden_state": ("`h` chains the graphs", "(line 12)", "`h = h.detach()`"),
    # `.item()` would break the script's own `running.item()` after the loop: the edit is run,
    # fails, and the hint adds the detached tensor
    "leak_running_total": (
        "`running` chains the graphs of 200 steps",
        "(line 15)",
        "Add `loss.detach()` to `running` at line 15 (`running += loss.detach()`): the snippet"
        " still uses `running` as a tensor",
    ),
    # the holder that holds, counted whole, and a hint that is valid code
    "leak_reinforce_stats_keep_policy_loss": (
        "`stats['policy_loss']` holds 30 tensors",
        "(line 38)",
        "`stats['policy_loss'].append(policy_loss.item())`",
    ),
    "leak_metrics_dict_one_new_key_per_step": (
        "`metrics` holds 40 tensors",
        "(line 18)",
        "{'loss': loss.item(), ",
    ),
    "leak_hidden_history_tuple_states": (
        "`hidden_history` holds 60 tensors that still carry their graphs, from 30 steps",
        "(line 20)",
        "`hidden_history.append(tuple((t.detach() for t in states)))`",
    ),
    "leak_list_subclass_that_hides_its_items": (
        "`history` holds 40 tensors",
        "(line 28)",
        "`history.append(loss.item())`",
    ),
    "leak_epoch_total_with_graph_reset_each_epoch": (
        "`epoch_loss` keeps every iteration's graph (line 19) until the loop at line 14 ends: 12"
        " here",
        "only when the loop at line 12 moves on, in all 10 of its passes",
        "`epoch_loss = epoch_loss + loss.detach()`",  # `.item()` breaks `epoch_loss.item()`
    ),
    "leak_hidden_state_reinitialised_each_epoch_retain_graph": (
        "the last backward of a pass runs through 7 earlier ones here",
        "(line 18)",
        "`hidden = hidden.detach()`",
    ),
}


@pytest.mark.parametrize("stem", sorted(EXPLAINED))
def test_a_leak_message_names_the_holder_and_line_and_the_hint_the_fix(stem):
    """The candidate reads where the graphs are kept, which line kept them, and what to store."""
    holder, line, fix = EXPLAINED[stem]
    verdict = graded(Path(__file__).parent / "corpus" / f"{stem}.py")
    assert holder in verdict.message and line in verdict.message, verdict.message
    assert fix in verdict.hint, verdict.hint


def test_a_buffer_a_backward_reads_back_is_never_named_nor_told_to_be_detached():
    """REINFORCE's episode buffer (policy.saved_log_probs) is read back for the episode's loss:
    detaching it would stop the policy gradient."""
    verdict = graded(Path(__file__).parent / "corpus" / "leak_reinforce_stats_keep_policy_loss.py")
    assert "saved_log_probs" not in verdict.message + verdict.hint
    assert all("saved_log_probs" not in r.path for r in verdict.retained)


TASK_FILES = {loaded.card.id: loaded.path for loaded in SHIPPED if loaded.card.code_task}


@pytest.mark.parametrize("path", TASK_FILES.values(), ids=TASK_FILES)
def test_grill_lint_run_passes_on_each_shipped_task(capsys, path):
    """Every shipped task's starter fails as its card says, its solution passes and each tried
    fix grades as it expects, graded by the grader users run (`grill lint --run CARD`; CI runs
    it on the packs), one task at a time so that parallel test workers share the work evenly
    however many tasks a pack has."""
    status = main(["lint", "--run", str(path)])
    out = capsys.readouterr().out
    assert status == 0, out
    assert out.strip().endswith("no problems; 1 card loaded")


def test_the_tasks_graded_one_by_one_are_those_lint_grades_in_the_shipped_packs():
    packs = sorted(path.parent for path in (ROOT / "questions").glob("*/pack.yaml"))
    in_packs = [loaded.path for loaded in lint_paths(packs).cards if loaded.card.code_task]
    assert sorted(in_packs) == sorted(TASK_FILES.values())
    assert len(TASK_FILES) >= 50


class _Broken(ast.NodeTransformer):
    """Rewrite a solution into a fix that stops keeping graphs by breaking the task."""

    def __init__(self, how: str):
        self.how = how
        self.halved = False

    def visit_Expr(self, node):
        call = node.value
        if (
            self.how == "no-updates"
            and isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "step"
            and "sched" not in ast.unparse(call.func.value)
        ):
            return ast.Pass()  # optimizer.step() (or scaler.step) dropped: nothing changes
        return self.generic_visit(node)

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if self.how == "detached" and isinstance(func, ast.Attribute) and func.attr == "backward":
            if ast.unparse(func.value) == "torch.autograd" and node.args:
                node.args[0] = _detached(node.args[0], many=True)
            else:
                func.value = _detached(func.value, many=False)
        return node

    def visit_For(self, node):
        if self.how == "fewer-steps" and "backward" in ast.unparse(node) and not self.halved:
            self.halved = True  # the outermost training loop runs half its iterations
            whole = ast.unparse(node.iter)
            node.iter = ast.parse(f"list({whole})[:len(list({whole})) // 2]", mode="eval").body
        return self.generic_visit(node)


def _detached(expression: ast.expr, many: bool) -> ast.expr:
    code = (
        f"[t.detach().requires_grad_() for t in {ast.unparse(expression)}]"
        if many
        else f"({ast.unparse(expression)}).detach().requires_grad_()"
    )
    return ast.parse(code, mode="eval").body


def broken(source: str, how: str) -> str:
    return ast.unparse(ast.fix_missing_locations(_Broken(how).visit(ast.parse(source))))


TRAINING_TASKS = [card for card in TASKS if card.code_task.contract.trains]
"""The tasks whose contract keeps training (an inference task, `trains: false`, has none to
break: its wrong fixes are its own tried fixes)."""


@pytest.mark.parametrize("how", ["no-updates", "fewer-steps", "detached"])
@pytest.mark.parametrize("card", TRAINING_TASKS, ids=[card.id for card in TRAINING_TASKS])
def test_a_fix_that_stops_the_leak_by_breaking_the_task_is_wrong(card, how, sandbox):
    """No optimizer update, half the training steps, the loss detached before backward: each
    keeps no graph and is `wrong`. Where the task's own code then trips over what the break
    removed (a hand-written all-reduce reading gradients that never came, a GradScaler told to
    update with no step), the fix raises instead: not graded, and never clean."""
    task = card.code_task
    fix = broken(task.solution, how)
    assert fix != ast.unparse(ast.parse(task.solution))
    verdict = grade_task(fix, task.spec, sandbox=sandbox)
    if verdict.verdict == "error":  # the task's own code tripped over what the break removed
        assert verdict.exit_code == 3 and verdict.extra.get("traceback"), verdict.error  # its own
        return
    assert verdict.verdict == "wrong", (verdict.verdict, verdict.message or verdict.error)
    assert any(not e.met for e in verdict.expectations)
