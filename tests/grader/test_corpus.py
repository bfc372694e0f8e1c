"""Every corpus snippet and every shipped code task grades as expected, in the real sandbox.

A corpus file's name starts with its expected verdict (`leak_...py`, `clean_...py`) and its
first line says what it shows. One warm sandbox serves the whole module.
"""

from pathlib import Path

import pytest
import yaml

from checkers.api import grade_file, grade_source
from checkers.sandbox import Sandbox

ROOT = Path(__file__).resolve().parents[2]
CORPUS = sorted((Path(__file__).parent / "corpus").glob("*.py"))
TASK_FILES = sorted(path for path in (ROOT / "questions").glob("*/*.yaml") if path.name != "pack.yaml")


def code_tasks():
    for path in TASK_FILES:
        card = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(card, dict) and card.get("code_task"):
            yield pytest.param(card["code_task"], id=card["id"])


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox(device="cpu") as box:
        yield box


def test_the_corpus_covers_both_verdicts_widely():
    kinds = [path.name.split("_")[0] for path in CORPUS]
    assert len(CORPUS) >= 30
    assert set(kinds) == {"leak", "clean"}
    assert min(kinds.count("leak"), kinds.count("clean")) >= 15


@pytest.mark.parametrize("path", CORPUS, ids=[path.stem for path in CORPUS])
def test_corpus_snippet_gets_its_expected_verdict(path, sandbox):
    expected = path.name.split("_")[0]
    verdict = grade_file(path, sandbox=sandbox)
    assert verdict.verdict == expected, verdict.message or verdict.error
    assert verdict.steps > 0
    if expected == "leak":
        assert verdict.message and verdict.hint
        assert verdict.extra["called_at_step"] <= 25
    else:
        assert verdict.retained == ()


EXPLAINED = {
    "leak_trainer_metrics": ("`trainer.metrics['loss']` holds 59 tensors", "(line 24)", "`loss.detach()`"),
    "leak_records_dicts": ("`records` holds 59 tensors", "(line 13)", "`loss.item()`"),
    "leak_gru_hidden_list": ("`hidden_states` holds 59 tensors", "(line 15)", "`h.detach()`"),
    "leak_best_loss_min": ("`best_loss`", "(line 13)", "in `best_loss`"),
    "leak_generator_meter": ("`m.<locals>.total`", "(line 10)", "in `total`"),
    "leak_partial": ("`pending` holds 59 tensors", "(line 19)", "`loss.item()`"),
    "leak_train_returns_losses": ("`history` holds 29 tensors", "(line 14)", "`loss.detach()`"),
    "leak_create_graph_norms": ("`grad_norms` holds", "(line 17)", "create_graph=True"),
    "leak_wgan_history": ("`history` holds 59 tensors", "(line 19)", "`loss.detach()`"),
    "leak_list_cleared_every_10": ("`window` kept the graphs", "until it was reset or replaced",
                                   "`loss.detach()`"),
}


@pytest.mark.parametrize("stem", sorted(EXPLAINED))
def test_a_leak_message_names_the_container_and_line_and_the_hint_the_fix(stem, sandbox):
    """The candidate reads where the graphs are kept, which line kept them, and what to store."""
    container, line, fix = EXPLAINED[stem]
    verdict = grade_file(Path(__file__).parent / "corpus" / f"{stem}.py", sandbox=sandbox)
    assert container in verdict.message and line in verdict.message
    assert fix in verdict.hint


@pytest.mark.parametrize("task", list(code_tasks()))
def test_shipped_code_task_starter_leaks_and_solution_is_clean(task, sandbox):
    steps = task.get("grading", {}).get("steps")
    starter = grade_source(task["starter"], sandbox=sandbox, steps=steps, filename="<starter>")
    solution = grade_source(task["solution"], sandbox=sandbox, steps=steps, filename="<solution>")
    assert starter.verdict == "leak", starter.message or starter.error
    assert solution.verdict == "clean", solution.message or solution.error
