"""A limit is named as the limit it is, whoever hit it: a file past the size cap is
`limit: file size` whether Python's `open`, torch's C++ writer or logging wrote it."""

from __future__ import annotations

import pytest
from sandbox_witness import SNIPPET

PAST_THE_CAP = 2 * 1024 * 1024


@pytest.mark.parametrize(
    "source",
    [
        f"open('big.bin', 'wb').write(b'x' * {PAST_THE_CAP})",
        f"import torch\ntorch.save(torch.zeros({PAST_THE_CAP // 4}), 'big.pt')",
        "import logging\nlogging.basicConfig(filename='run.log', level=logging.INFO)\n"
        f"for step in range({PAST_THE_CAP // 1000}):\n    logging.info('x' * 1000)",
    ],
    ids=["open", "torch-save", "logging"],
)
def test_a_file_past_the_cap_is_the_file_size_limit_whoever_wrote_it(either_sandbox, source):
    outcome = either_sandbox.run(SNIPPET, {"source": source})
    assert (outcome.status, outcome.error.kind) == ("limit", "file size"), outcome.error


def test_files_under_the_cap_are_written_as_usual(either_sandbox):
    source = (
        "import torch, logging\nlogging.basicConfig(filename='run.log', level=logging.INFO)\n"
        "logging.info('step 1')\ntorch.save(torch.zeros(10), 'small.pt')\n"
        "result = [open('run.log').read().strip(), torch.load('small.pt').shape[0]]"
    )
    outcome = either_sandbox.run(SNIPPET, {"source": source})
    assert outcome.result == {"result": ["INFO:root:step 1", 10]}, outcome.error
