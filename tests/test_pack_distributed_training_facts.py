"""The small experiments behind the distributed-training pack's newer claims, kept so the claims
stay true: a PyTorch upgrade that changes one of these behaviours fails a test here instead of
leaving a card wrong."""

from __future__ import annotations

import socket

import pytest
import torch
import torch.distributed as dist
from torch.utils.data.distributed import DistributedSampler


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def one_process_group(monkeypatch):
    """What torchrun sets for a job of one process, then a gloo group built from it."""
    for name, value in {
        "RANK": "0",
        "LOCAL_RANK": "0",
        "WORLD_SIZE": "1",
        "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": str(free_port()),
    }.items():
        monkeypatch.setenv(name, value)
    dist.init_process_group(backend="gloo")
    yield
    dist.destroy_process_group()


@pytest.mark.usefixtures("one_process_group")
def test_init_process_group_reads_rank_and_world_size_from_the_environment():
    """rank-local-rank-and-world-size: env:// is the default, and the sampler takes its share
    from the group."""
    assert (dist.get_rank(), dist.get_world_size()) == (0, 1)
    sampler = DistributedSampler(list(range(6)), shuffle=False)
    assert (sampler.num_replicas, sampler.rank) == (1, 0)
    assert list(sampler) == [0, 1, 2, 3, 4, 5]
    assert dist.is_available() and torch.distributed.is_initialized()
