"""The snippet runs as a file of its own, as under `python FILE`: `sys.argv[0]` and `__file__`
name a read-only copy of its source in the run's folder, which a script logging its own code
reads (`open(sys.argv[0]).read()`, `Path(__file__).read_text()`); writing it is refused, and no
message names the run folder's place on the host. With and without bubblewrap."""

from __future__ import annotations

import os

import pytest

from checkers.api import grade_source

READS_ITSELF = """\
import os
import sys
from pathlib import Path

import torch

with open(sys.argv[0]) as f:
    code = f.read()
print("argv", sys.argv[0], len(code), code.splitlines()[0])
print("file", os.path.basename(__file__), Path(__file__).read_text() == code)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(5):
    loss = model(torch.randn(4, 2)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_the_snippet_reads_its_own_file_under_its_name(either_sandbox):
    verdict = grade_source(READS_ITSELF, sandbox=either_sandbox, filename="/home/u/train_gpt.py")
    assert verdict.verdict == "clean", verdict.message or verdict.error
    assert f"argv train_gpt.py {len(READS_ITSELF)} import os" in verdict.output
    assert "file train_gpt.py True" in verdict.output


def test_a_snippet_without_a_file_name_runs_as_snippet_py(either_sandbox):
    verdict = grade_source(READS_ITSELF, sandbox=either_sandbox, filename="<your code>")
    assert verdict.verdict == "clean", verdict.message or verdict.error
    assert "argv snippet.py" in verdict.output


@pytest.mark.parametrize(
    "writes",
    [
        "open(sys.argv[0], 'a').write('x')",
        "pathlib.Path(sys.argv[0]).write_text('x')",
        "codecs.open(sys.argv[0], 'a').write('x')",
        "logging.FileHandler(sys.argv[0])",
    ],
    ids=["open", "pathlib", "codecs", "logging"],
)
def test_the_own_file_is_read_only_whoever_opens_it(either_sandbox, writes):
    """Through the snippet's own `open` or a stdlib helper that opens it for the snippet."""
    source = f"import codecs, logging, pathlib, sys\n{writes}\n"
    verdict = grade_source(source, sandbox=either_sandbox, filename="train.py")
    assert verdict.error is not None and verdict.error.kind == "refused"
    assert "read-only" in verdict.error.message and verdict.error.line == 2


def test_a_missing_file_is_named_as_the_snippet_named_it(either_sandbox):
    verdict = grade_source("open('data/missing.txt')\n", sandbox=either_sandbox, filename="t.py")
    assert verdict.error is not None
    assert "'data/missing.txt'" in verdict.error.message
    scratch_parent = os.environ.get("TMPDIR", "/tmp")
    assert scratch_parent not in verdict.error.message + verdict.extra.get("traceback", "")


TEMPORARY_FILES = """\
import os
import tempfile

import torch

with tempfile.TemporaryFile() as spare:
    spare.write(b"scratch")
    spare.seek(0)
    print("temporary", spare.read())
folder = tempfile.mkdtemp()
print("inside the run", os.path.dirname(folder) == os.getcwd())
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(5):
    loss = model(torch.randn(4, 2)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_temporary_files_without_a_folder_land_in_the_run_folder(either_sandbox):
    """tempfile's default is the run's folder, the one place a snippet may write: a script's
    `TemporaryFile()` or `mkdtemp()` with no `dir=` runs as under `python FILE`."""
    verdict = grade_source(TEMPORARY_FILES, sandbox=either_sandbox)
    assert verdict.verdict == "clean", verdict.message or verdict.error
    assert "temporary b'scratch'" in verdict.output
    assert "inside the run True" in verdict.output
