"""grill's pytest plugin, as a user's own suite meets it: the `no_graph_leak` marker and
fixture watch a test's training loop as written, pass a clean one and fail a leaking one
with grill's report; `--grill-report` sums up; a suite that does not ask pays nothing.

The suites below run in a fresh pytest process (`pytester`), with the plugin loaded from
grill's `pytest11` entry point as any project's pytest loads it."""

import textwrap
from importlib.metadata import entry_points
from pathlib import Path

REALCODE = Path(__file__).parent / "realcode"
pytest_plugins = ["pytester"]

LOADER = f"""\
import importlib.util
import sys

import pytest

REALCODE = {str(REALCODE)!r}


def load(name, text=None):
    '''The corpus script `name` as a module (its `__main__` block not run); `text`: another
    version of it, written beside the test.'''
    path = f"{{REALCODE}}/{{name}}.py"
    if text is not None:
        path = f"twin_{{name}}.py"
        with open(path, "w") as file:
            file.write(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def mnist_twin():
    '''examples_mnist.py whose train() keeps every batch's loss tensor: a leak.'''
    with open(f"{{REALCODE}}/examples_mnist.py") as file:
        text = file.read()
    kept = "        optimizer.step()\\n        seen_losses.append(loss)\\n"
    return "seen_losses = []\\n" + text.replace("        optimizer.step()\\n", kept, 1)
"""

REALCODE_TESTS = """\
GPT_SETTINGS = {"learning_rate": 5e-4, "num_epochs": 3, "batch_size": 2, "weight_decay": 0.1}


@pytest.mark.no_graph_leak
def test_gpt_pretraining(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    gpt = load("llmsfromscratch_ch05_gpt_train")
    gpt.main(gpt.GPT_CONFIG_124M, GPT_SETTINGS)


@pytest.mark.no_graph_leak
def test_gpt_pretraining_twin(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    gpt = load("variant_leak_llmsfromscratch_ch05_step_losses")
    gpt.main(gpt.GPT_CONFIG_124M, GPT_SETTINGS)


@pytest.mark.no_graph_leak
def test_word_language_model(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["main.py"])
    load("examples_word_language_model_lstm")  # its training runs at import, as a script


@pytest.mark.no_graph_leak
def test_word_language_model_twin(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["main.py"])
    load("variant_leak_examples_word_language_model_total_loss")


@pytest.mark.no_graph_leak
def test_mnist(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["main.py"])
    load("examples_mnist").main()


@pytest.mark.no_graph_leak
def test_mnist_twin(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["main.py"])
    load("examples_mnist", mnist_twin()).main()
"""


def test_real_training_functions_pass_clean_and_fail_their_leaking_twins(pytester):
    pytester.makepyfile(test_realcode=LOADER + REALCODE_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--grill-report")
    outcomes = result.parseoutcomes()
    assert (outcomes.get("passed"), outcomes.get("failed")) == (3, 3), result.stdout.str()
    failed = {line.split("::")[1].split(" ")[0] for line in result.stdout.lines if "FAILED" in line}
    assert failed == {
        "test_gpt_pretraining_twin",
        "test_word_language_model_twin",
        "test_mnist_twin",
    }
    text = result.stdout.str()
    assert "LEAK: autograd graph keeps accumulating" in text
    assert "step_losses" in text and "epoch_loss" in text and "seen_losses" in text
    assert "Line numbers are those of" in text
    report = text[text.index("grill: autograd graph per watched test") :]
    summary = report[: report.index("short test summary info")]  # grill's section alone
    assert summary.count("CLEAN") == 3 and summary.count("LEAK") == 3


def test_the_fixture_watches_only_its_block_and_stops_it_at_its_steps(pytester):
    pytester.makepyfile(
        test_fixture=textwrap.dedent(
            """\
            import torch


            def train(model, steps, keep):
                opt = torch.optim.SGD(model.parameters(), lr=0.01)
                for _ in range(steps):
                    loss = model(torch.randn(8, 4)).pow(2).mean()
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    keep(loss)


            def test_clean(no_graph_leak):
                history = []
                model = torch.nn.Linear(4, 1)
                with no_graph_leak(steps=15) as watched:
                    train(model, 10_000, lambda loss: history.append(loss.item()))
                assert len(history) == 14  # the 15th step ended the loop
                assert watched.verdict.verdict == "clean"
                assert watched.verdict.steps == 15


            def test_leak(no_graph_leak):
                history = []
                with no_graph_leak():
                    train(torch.nn.Linear(4, 1), 30, history.append)
            """
        )
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    text = result.stdout.str()
    assert "GraphLeak: autograd graph keeps accumulating across steps" in text
    assert "`history` holds 30 tensors" in text or "history" in text


def test_a_suite_that_does_not_ask_loads_no_torch(pytester):
    pytester.makepyfile(
        test_plain="""
        import sys

        def test_nothing_was_imported_for_grill():
            assert "torch" not in sys.modules
            assert "checkers.testing" not in sys.modules
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--grill-report")
    result.assert_outcomes(passed=1)
    assert "no test was watched" in result.stdout.str()


def test_the_plugin_is_registered_and_imports_no_torch(imported_after):
    (plugin,) = [e for e in entry_points(group="pytest11") if e.name == "grill"]
    assert plugin.value == "checkers.pytest_plugin"
    assert imported_after("import checkers.pytest_plugin").of("torch", "checkers.measure") == []
