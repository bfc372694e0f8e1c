"""`grill run`: the user's own script, run in grill's process as `python SCRIPT` would run it
(its imports, files, arguments, `__main__`), watched without rewriting, and judged as
`grill check` judges a snippet."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest
import torch
from pace import bound

from app.cli import main
from checkers.verdict_schema import published

LOOP = """\
import torch
import torch.nn as nn

model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
total = 0
for step in range({steps}):
    loss = model(torch.randn(16, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    total += {kept}
print("finished", float(total))
"""


def script(folder, text, name="train.py"):
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def run(capsys, *argv):
    """Exit status, standard output with its lines joined (a report wraps at 80 columns), and
    standard error."""
    status = main(["run", *argv])
    captured = capsys.readouterr()
    return status, " ".join(captured.out.split()), captured.err


def test_a_leaking_script_is_judged_as_grill_check_judges_it(tmp_path, capsys):
    path = script(tmp_path, LOOP.format(steps=40, kept="loss"))
    status, out, _ = run(capsys, str(path))
    assert status == 1
    assert " LEAK: autograd graph keeps accumulating" in out
    assert "Memory above the first step" in out
    assert "total AddBackward0 41" in out and "(line 12)" in out
    assert "Hint:" in out and "loss.item()" in out
    assert "finished" in out  # the script's own output, as it ran
    assert "Watched the whole run (40 optimizer steps, 40 backward passes" in out


def test_a_clean_script_exits_0(tmp_path, capsys):
    path = script(tmp_path, LOOP.format(steps=40, kept="loss.item()"))
    status, out, _ = run(capsys, "--", "python", str(path))
    assert status == 0
    assert "CLEAN" in out and "Still holding graphs" not in out


def test_the_script_runs_as_python_runs_it_with_its_own_files_and_imports(
    tmp_path, capsys, monkeypatch
):
    script(tmp_path, "SCALE = 3\n", name="helpers.py")
    (tmp_path / "config.json").write_text('{"steps": 6}', encoding="utf-8")
    path = script(
        tmp_path,
        """\
        import json, os, sys
        from pathlib import Path
        import torch
        import helpers

        config = json.loads((Path(__file__).parent / "config.json").read_text())
        print("name", __name__, "argv", sys.argv[1:], "env", os.environ["GRILL_TRY"])
        w = torch.zeros(2, requires_grad=True)
        opt = torch.optim.SGD([w], lr=0.1)
        for _ in range(config["steps"]):
            loss = (w * helpers.SCALE).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        if __name__ == "__main__":
            print("main ran")
        """,
    )
    monkeypatch.setenv("GRILL_TRY", "seen")
    status, out, _ = run(capsys, str(path), "--lr", "3")
    assert status == 0, out
    assert "name __main__ argv ['--lr', '3'] env seen" in out
    assert "main ran" in out
    assert "6 optimizer steps" in out


TRAINER = """\
import torch


class Trainer:
    def __init__(self, model, lr):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=lr)
        self.history = []

    def fit(self, batches):
        for x, y in batches:
            loss = torch.nn.functional.mse_loss(self.model(x), y)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            self.history.append(loss)
"""


def test_a_loop_in_the_users_own_package_is_named_in_its_own_file(tmp_path, capsys, monkeypatch):
    (tmp_path / "mypkg").mkdir()
    script(tmp_path / "mypkg", "", name="__init__.py")
    script(tmp_path / "mypkg", TRAINER, name="trainer.py")
    path = script(
        tmp_path,
        """\
        import torch
        from mypkg.trainer import Trainer

        batches = [(torch.randn(16, 8), torch.randn(16, 1)) for _ in range(30)]
        trainer = Trainer(torch.nn.Linear(8, 1), 0.01)
        trainer.fit(batches)
        """,
    )
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, str(path))
    assert status == 1
    assert "`trainer.history` holds 30 tensors" in out and "(line 16)" in out
    assert "`self.history.append(loss.item())`" in out
    assert "Note: Line numbers are those of mypkg/trainer.py." in out


def test_steps_stop_the_run_and_the_verdict_says_so(tmp_path, capsys):
    path = script(tmp_path, LOOP.format(steps=1000, kept="loss"))
    status, out, _ = run(capsys, "--steps", "12", str(path))
    assert status == 1
    assert "finished" not in out  # the run was ended at its 12th step
    assert "Stopped at the step cap (12 optimizer steps" in out
    assert "the rest of the run was not watched" in out


def test_seconds_stop_an_endless_run(tmp_path, capsys):
    path = script(tmp_path, LOOP.format(steps=10**9, kept="loss.item()"))
    status, out, _ = run(capsys, "--seconds", "1", str(path))
    assert status == 0
    assert "Stopped at its time budget" in out


def test_a_run_that_swallows_the_stop_is_stopped_again_at_its_next_step(tmp_path, capsys):
    path = script(
        tmp_path,
        """\
        import time
        import torch
        w = torch.zeros(2, requires_grad=True)
        time.sleep(0.01)  # past a budget of 0.001 s before the first backward
        swallowed = 0
        for _ in range(30):
            try:
                (w * 2).sum().backward()
            except BaseException:
                swallowed += 1
        print("swallowed", swallowed)
        """,
    )
    status, out, _ = run(capsys, "--steps", "1", "--seconds", "60", str(path))
    assert "swallowed 0" in out  # no optimizer step: the step cap never came
    assert status == 0
    status, out, _ = run(capsys, "--seconds", "0.001", str(path))
    assert "swallowed 30" in out  # every backward after the budget met the stop again
    assert "Stopped at its time budget" in out


def test_a_script_that_raises_is_not_graded_with_its_own_traceback(tmp_path, capsys):
    path = script(
        tmp_path,
        """\
        import torch

        def load():
            raise FileNotFoundError("data/train.bin")

        w = torch.zeros(2, requires_grad=True)
        load()
        """,
    )
    status, out, _ = run(capsys, str(path))
    assert status == 3
    assert out.startswith("NOT GRADED (the script raised an error)")
    assert "FileNotFoundError: data/train.bin (line 4)" in out
    assert f'File "{path}", line 7, in <module>' in out
    assert "checkers" not in out  # grill's own frames are not the script's


def test_a_script_that_trains_nothing_is_not_graded_and_told_so(tmp_path, capsys):
    path = script(tmp_path, "import torch\nprint(torch.ones(3).sum().item())\n")
    status, out, _ = run(capsys, str(path))
    assert status == 3
    assert "nothing in the script used a tensor that requires grad" in out
    assert "snippet" not in out


def test_exit_statuses_of_the_script(tmp_path, capsys):
    ending = LOOP.format(steps=8, kept="loss.item()") + "import sys\nsys.exit({})\n"
    status, out, _ = run(capsys, str(script(tmp_path, ending.format(0))))
    assert status == 0 and "CLEAN" in out
    status, out, _ = run(capsys, str(script(tmp_path, ending.format(2))))
    assert status == 3 and "the script exited with status 2" in out


def test_a_module_runs_as_python_dash_m_runs_it(tmp_path, capsys, monkeypatch):
    package = tmp_path / "trainer"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    script(package, LOOP.format(steps=20, kept="loss"), name="main.py")
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "--", "python", "-m", "trainer.main")
    assert status == 1
    assert "(line 12)" in out


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        ([], "name the script to run"),
        (["--", "python", "-c", "pass"], "python -c: grill run takes a script or -m MODULE"),
        (["missing.py"], "missing.py: no such file"),
        (["--", "python", "-m", "no_such_module_here"], "no module named no_such_module_here"),
    ],
)
def test_command_lines_that_name_no_script_are_usage_errors(capsys, argv, said):
    status, _, err = run(capsys, *argv)
    assert status == 2
    assert said in err


def test_json_is_one_object_on_standard_output_and_follows_the_schema(tmp_path, capfd):
    path = script(tmp_path, LOOP.format(steps=20, kept="loss"))
    status = main(["run", "--json", str(path)])
    captured = capfd.readouterr()
    assert status == 1
    (line,) = captured.out.splitlines()  # the script's print went to standard error
    record = json.loads(line)
    jsonschema.validate(record, json.loads(published()))
    assert record["verdict"] == "leak" and record["file"] == str(path)
    assert "finished" in captured.err


def test_the_help_says_it_is_no_sandbox_and_imports_no_torch(imported_after):
    modules = imported_after(
        "import contextlib, io\nfrom app.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(out):\n"
        "    main(['run', '--help'])\n"
        "print(' '.join(out.getvalue().split()))"
    )
    assert modules.of("torch") == []
    assert "grill run is NOT a sandbox" in modules.output
    assert "use grill check for code you do not trust" in modules.output


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_device_cuda_reads_the_caching_allocator(tmp_path, capsys):
    text = LOOP.format(steps=30, kept="loss").replace("nn.Linear(8, 1)", "nn.Linear(8, 1).cuda()")
    path = script(tmp_path, text.replace("torch.randn(16, 8)", "torch.randn(16, 8, device='cuda')"))
    status, out, _ = run(capsys, "--device", "cuda", str(path))
    assert status == 1
    assert "device cuda" in out


DDP = """\
import torch
import torch.distributed as dist
import torch.nn as nn

dist.init_process_group("gloo")
rank = dist.get_rank()
model = nn.parallel.DistributedDataParallel(nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
kept = []
for step in range(30):
    loss = model(torch.randn(16, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    kept.append(loss if rank == 1 else loss.item())
dist.destroy_process_group()
"""


def test_under_torchrun_each_rank_reports_and_rank_0_prints_the_runs_verdict(tmp_path):
    path = script(tmp_path, DDP)
    grill = Path(sys.executable).parent / "grill"
    done = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2"]
        + ["--no-python", str(grill), "run", str(path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=bound(30),
    )
    out = " ".join(done.stdout.split())
    assert done.returncode != 0  # a rank's leak fails the launch, as a failing script would
    assert out.count("LEAK: autograd graph keeps accumulating") == 1  # rank 0's report only
    assert "Rank 1 of 2: `kept` holds 30 tensors" in out
    assert "Ranks (2):" in out
    assert "grill run: rank 1: leak after 30 steps" in done.stderr


def test_a_warning_torch_raises_is_shown_at_the_scripts_line_not_grills(tmp_path):
    path = script(tmp_path, LOOP.format(steps=8, kept="loss"))  # float(total) warns at line 13
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "run", str(path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=bound(30),
    )
    assert f"{path}:13: UserWarning: Converting a tensor with requires_grad=True" in done.stderr
    assert "checkers" not in done.stderr
