"""A limit is named as the limit it is, whoever hit it: a run that fails after a write past
the file size cap is `limit: file size` whether Python's `open` or torch's C++ writer made
it, or a logging handler (which otherwise reports a failed write and goes on); a run whose
code shrugs the failed write off goes on."""

from __future__ import annotations

import pytest
from sandbox_witness import SNIPPET

PAST_THE_CAP = 2 * 1024 * 1024


@pytest.mark.parametrize(
    "source",
    [
        f"open('big.bin', 'wb').write(b'x' * {PAST_THE_CAP})",
        f"import torch\ntorch.save(torch.zeros({PAST_THE_CAP // 4}), 'big.pt')",
        f"try:\n    open('big.bin', 'wb').write(b'x' * {PAST_THE_CAP})\n"
        "except OSError as exc:\n    raise RuntimeError('could not save') from exc",
        "import logging\nlogging.basicConfig(filename='run.log')\n"
        f"logging.warning('x' * {PAST_THE_CAP})\nresult = 'logged'",
    ],
    ids=["open", "torch-save", "reworded", "logging-handler"],
)
def test_a_file_past_the_cap_is_the_file_size_limit_whoever_wrote_it(either_sandbox, source):
    outcome = either_sandbox.run(SNIPPET, {"source": source})
    assert (outcome.status, outcome.error.kind) == ("limit", "file size"), outcome.error


def test_a_run_that_shrugs_off_a_write_past_the_cap_goes_on(either_sandbox):
    """As a profiler's trace handler does: the run is not ended for it."""
    source = (
        f"try:\n    open('big.bin', 'wb').write(b'x' * {PAST_THE_CAP})\n"
        "except OSError:\n    pass\nresult = 'went on'"
    )
    outcome = either_sandbox.run(SNIPPET, {"source": source})
    assert outcome.result == {"result": "went on"}, outcome.error


def test_files_under_the_cap_are_written_as_usual(either_sandbox):
    source = (
        "import torch, logging\nlogging.basicConfig(filename='run.log', level=logging.INFO)\n"
        "logging.info('step 1')\ntorch.save(torch.zeros(10), 'small.pt')\n"
        "result = [open('run.log').read().strip(), torch.load('small.pt').shape[0]]"
    )
    outcome = either_sandbox.run(SNIPPET, {"source": source})
    assert outcome.result == {"result": ["INFO:root:step 1", 10]}, outcome.error
