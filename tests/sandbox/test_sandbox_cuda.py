"""CUDA inside the box: the command line a GPU machine gets, and (on one) a real run."""

from __future__ import annotations

import pytest
from sandbox_witness import SNIPPET, sandbox_with_jobs

from checkers.sandbox import isolation
from checkers.sandbox.isolation import host_has_cuda_devices


def test_a_gpu_machine_binds_the_device_nodes_after_the_minimal_dev(monkeypatch):
    monkeypatch.setattr(
        isolation,
        "cuda_device_nodes",
        lambda: ["/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-uvm"],
    )
    args = isolation.bwrap_arguments(dict(isolation.SANDBOX_ENV), cuda=True)
    dev = args.index("--dev")
    for node in ("/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-uvm"):
        at = args.index(node)
        assert args[at - 1] == "--dev-bind" and at > dev
    assert ["--ro-bind", "/sys", "/sys"] == args[args.index("/sys") - 1 : args.index("/sys") + 2]


def test_a_cpu_run_binds_no_device_and_no_sys():
    args = isolation.bwrap_arguments(dict(isolation.SANDBOX_ENV), cuda=False)
    assert "--dev-bind" not in args and "/sys" not in args


@pytest.mark.cuda
@pytest.mark.skipif(not host_has_cuda_devices(), reason="no NVIDIA GPU on this machine")
def test_a_snippet_trains_on_the_gpu_inside_the_box():
    source = (
        "import torch\nnet = torch.nn.Linear(4, 1).cuda()\n"
        "loss = net(torch.randn(8, 4, device='cuda')).sum()\nloss.backward()\n"
        "result = [str(loss.device), torch.cuda.memory_allocated() > 0]\n"
    )
    with sandbox_with_jobs(device="cuda") as box:
        first = box.run(SNIPPET, {"source": source})
        second = box.run(SNIPPET, {"source": source})
    assert box.device == "cuda"
    assert first.result == second.result == {"result": ["cuda:0", True]}
