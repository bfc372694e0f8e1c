"""The CUDA path: allocator bytes as the memory curve, graphs still decide. Needs a GPU and a
CUDA build of torch; skipped cleanly anywhere else (CI, the CPU wheel).

On an accelerator: `.venv/bin/pytest -m cuda tests/grader/test_cuda.py`.
"""

from pathlib import Path

import pytest
import torch

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

CORPUS = Path(__file__).parent / "corpus"


def test_the_allocator_counter_sees_a_tensor_being_allocated():
    from checkers.measure.memory import CudaAllocator

    reader = CudaAllocator()
    before, _ = reader.read()
    block = torch.empty(1024 * 1024, device="cuda")
    after, reserved = reader.read()
    assert after - before >= block.numel() * 4
    assert reserved >= after


@pytest.mark.parametrize(
    "name",
    [
        "leak_running_total.py",
        "leak_list_of_losses.py",
        "clean_item_total.py",
        "clean_sawtooth_batch_sizes.py",
    ],
)
def test_snippets_grade_the_same_on_cuda(name):
    from checkers.api import grade_file
    from checkers.sandbox import Sandbox

    with Sandbox(device="cuda") as box:
        verdict = grade_file(CORPUS / name, sandbox=box, device="cuda")
    assert verdict.device == "cuda"
    assert verdict.verdict == name.split("_")[0], verdict.message or verdict.error
    assert "reserved" in verdict.extra


def test_a_leak_on_cuda_grows_allocated_bytes():
    from checkers.testing import assert_no_graph_leak

    model = torch.nn.Linear(256, 256, device="cuda")
    kept = []

    def step():
        loss = model(torch.randn(64, 256, device="cuda")).pow(2).mean()
        loss.backward()
        kept.append(loss)

    with pytest.raises(AssertionError, match="LEAK"):
        assert_no_graph_leak(step, steps=20, device="cuda")
