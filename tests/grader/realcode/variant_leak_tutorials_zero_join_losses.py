# Modeled on pytorch/tutorials recipes_source/zero_redundancy_optimizer.rst @ 01c63024aba9 and
# advanced_source/generic_join.rst @ 0e3158bae11a (BSD-3-Clause, Copyright (c) 2017-2022
# PyTorch contributors); written for grill's realcode corpus. Run as `torchrun
# --nproc-per-node 2` (grill check --ranks 2).
# grill-corpus: the recipe's example() (DDP + ZeroRedundancyOptimizer over Adam) trained over
# uneven inputs under Join([model, optim]), as the Join tutorial's ZeRO worker does; the
# recipe's single step becomes one step per input (zero_grad added).
# grill-corpus: mp.spawn(example, nprocs=world_size) and the hard-coded MASTER_ADDR/PORT
# replaced by torchrun's environment; CPU and gloo (no .to(rank), no device_ids, no CUDA
# memory figures: the parameters' sizes printed instead); 20 layers of 2000 -> 4 of 32.
# grill-corpus: VARIANT, not the public code: every step's loss is kept in `losses`, graph and
# all, to print their mean once the rank has joined.
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.algorithms.join import Join
from torch.distributed.optim import ZeroRedundancyOptimizer
from torch.nn.parallel import DistributedDataParallel as DDP

NUM_INPUTS = 24  # grill-corpus: 5 -> 24; rank r gets NUM_INPUTS + r


def print_peak_memory(prefix, device, model):
    if device == 0:  # only rank 0 prints
        print(f"{prefix}: {sum(p.numel() for p in model.parameters())} parameters")


def example(rank, world_size, use_zero):
    torch.manual_seed(0)
    # create default process group
    dist.init_process_group("gloo")  # grill-corpus: rank and world size from torchrun's env

    # create local model
    model = nn.Sequential(*[nn.Linear(32, 32) for _ in range(4)])
    print_peak_memory("Max memory allocated after creating local model", rank, model)

    # construct DDP model
    ddp_model = DDP(model)
    print_peak_memory("Max memory allocated after creating DDP", rank, ddp_model)

    # define loss function and optimizer
    loss_fn = nn.MSELoss()
    if use_zero:
        optimizer = ZeroRedundancyOptimizer(ddp_model.parameters(), optimizer_class=torch.optim.Adam, lr=0.01)
    else:
        optimizer = torch.optim.Adam(ddp_model.parameters(), lr=0.01)

    # rank 1 gets one more input than rank 0
    inputs = [torch.randn(20, 32) for _ in range(NUM_INPUTS + rank)]
    labels = torch.randn(20, 32)

    num_inputs = 0
    losses = []  # grill-corpus: VARIANT
    # pass both the model and the optimizer into Join(): a rank that runs out of inputs
    # shadows the other's gradient all-reduce and takes its part in each optimizer step
    with Join([ddp_model, optimizer]):
        for input in inputs:
            num_inputs += 1
            optimizer.zero_grad()
            # forward pass
            outputs = ddp_model(input)
            # backward pass
            loss = loss_fn(outputs, labels)  # grill-corpus: VARIANT, the loss named
            loss.backward()
            losses.append(loss)  # grill-corpus: VARIANT, kept with its graph
            # update parameters
            optimizer.step()

    print(f"Rank {rank} has exhausted all {num_inputs} of its inputs!")
    print(f"mean loss: {sum(losses) / len(losses):.4f}")  # grill-corpus: VARIANT
    print(f"params sum is: {sum(model.parameters()).sum()}")
    dist.destroy_process_group()


def main():
    world_size = int(os.environ["WORLD_SIZE"])  # grill-corpus: world_size = 2
    rank = int(os.environ["RANK"])  # grill-corpus: mp.spawn's rank argument
    if rank == 0:
        print("=== Using ZeroRedundancyOptimizer ===")
    example(rank, world_size, True)  # grill-corpus: the second run, without ZeRO, dropped


if __name__ == "__main__":
    main()
