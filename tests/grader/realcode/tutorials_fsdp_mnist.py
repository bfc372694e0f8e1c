# Modeled on pytorch/tutorials intermediate_source/FSDP_tutorial.rst (FSDP_mnist.py) @
# 09dfc6222a1d (BSD-3-Clause, Copyright (c) 2017-2022 PyTorch contributors); written for
# grill's realcode corpus. Run as `torchrun --nproc-per-node 2` (grill check --ranks 2).
# grill-corpus: FSDP on the CPU over gloo (device_id=cpu), no CUDA events, set_device or
# pin_memory; mp.spawn(fsdp_main, nprocs=WORLD_SIZE) and setup()'s MASTER_ADDR/PORT replaced
# by torchrun's environment.
# grill-corpus: torchvision is not installed: datasets.MNIST + Normalize replaced by random
# 1x12x12 images (64 to train, 32 to test); the Net shrunk to 8/16 channels and 32 hidden
# units; batch sizes 64/1000 -> 8/16, 10 epochs -> 3, num_workers 2 -> 0.
import argparse
import functools
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp.wrap import size_based_auto_wrap_policy
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import TensorDataset
from torch.utils.data.distributed import DistributedSampler


def setup(rank, world_size):
    # initialize the process group (grill-corpus: the address and port come from torchrun)
    dist.init_process_group("gloo", rank=rank, world_size=world_size)  # grill-corpus: nccl


def cleanup():
    dist.destroy_process_group()


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1)
        self.conv2 = nn.Conv2d(8, 16, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(256, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def train(args, model, rank, world_size, train_loader, optimizer, epoch, sampler=None):
    model.train()
    ddp_loss = torch.zeros(2)  # grill-corpus: .to(rank)
    if sampler:
        sampler.set_epoch(epoch)
    for batch_idx, (data, target) in enumerate(train_loader):
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target, reduction="sum")
        loss.backward()
        optimizer.step()
        ddp_loss[0] += loss.item()
        ddp_loss[1] += len(data)

    dist.all_reduce(ddp_loss, op=dist.ReduceOp.SUM)
    if rank == 0:
        print("Train Epoch: {} \tLoss: {:.6f}".format(epoch, ddp_loss[0] / ddp_loss[1]))


def test(model, rank, world_size, test_loader):
    model.eval()
    ddp_loss = torch.zeros(3)
    with torch.no_grad():
        for data, target in test_loader:
            output = model(data)
            ddp_loss[0] += F.nll_loss(output, target, reduction="sum").item()  # sum up batch loss
            pred = output.argmax(dim=1, keepdim=True)  # the index of the max log-probability
            ddp_loss[1] += pred.eq(target.view_as(pred)).sum().item()
            ddp_loss[2] += len(data)

    dist.all_reduce(ddp_loss, op=dist.ReduceOp.SUM)

    if rank == 0:
        test_loss = ddp_loss[0] / ddp_loss[2]
        print("Test set: Average loss: {:.4f}, Accuracy: {}/{} ({:.2f}%)\n".format(test_loss, int(ddp_loss[1]), int(ddp_loss[2]), 100.0 * ddp_loss[1] / ddp_loss[2]))


def mnist_like(count, seed):
    """grill-corpus: datasets.MNIST(...) with ToTensor/Normalize, as random normalised images."""
    generator = torch.Generator().manual_seed(seed)
    images = torch.randn(count, 1, 12, 12, generator=generator)
    labels = torch.randint(0, 10, (count,), generator=generator)
    return TensorDataset(images, labels)


def fsdp_main(rank, world_size, args):
    setup(rank, world_size)

    dataset1 = mnist_like(64, 1)
    dataset2 = mnist_like(32, 2)

    sampler1 = DistributedSampler(dataset1, rank=rank, num_replicas=world_size, shuffle=True)
    sampler2 = DistributedSampler(dataset2, rank=rank, num_replicas=world_size)

    train_kwargs = {"batch_size": args.batch_size, "sampler": sampler1}
    test_kwargs = {"batch_size": args.test_batch_size, "sampler": sampler2}
    cpu_kwargs = {"num_workers": 0, "shuffle": False}  # grill-corpus: cuda_kwargs
    train_kwargs.update(cpu_kwargs)
    test_kwargs.update(cpu_kwargs)

    train_loader = torch.utils.data.DataLoader(dataset1, **train_kwargs)
    test_loader = torch.utils.data.DataLoader(dataset2, **test_kwargs)
    my_auto_wrap_policy = functools.partial(size_based_auto_wrap_policy, min_num_params=100)

    model = Net()
    model = FSDP(model, auto_wrap_policy=my_auto_wrap_policy, device_id=torch.device("cpu"))

    optimizer = optim.Adadelta(model.parameters(), lr=args.lr)

    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)
    for epoch in range(1, args.epochs + 1):
        train(args, model, rank, world_size, train_loader, optimizer, epoch, sampler=sampler1)
        test(model, rank, world_size, test_loader)
        scheduler.step()

    if rank == 0:
        print(f"{model}")

    if args.save_model:
        # a barrier: training is done on every rank
        dist.barrier()
        states = model.state_dict()
        if rank == 0:
            torch.save(states, "mnist_cnn.pt")

    cleanup()


if __name__ == "__main__":
    # Training settings
    parser = argparse.ArgumentParser(description="PyTorch MNIST Example")
    parser.add_argument("--batch-size", type=int, default=8, metavar="N")
    parser.add_argument("--test-batch-size", type=int, default=16, metavar="N")
    parser.add_argument("--epochs", type=int, default=3, metavar="N")
    parser.add_argument("--lr", type=float, default=1.0, metavar="LR")
    parser.add_argument("--gamma", type=float, default=0.7, metavar="M")
    parser.add_argument("--no-cuda", action="store_true", default=False)
    parser.add_argument("--seed", type=int, default=1, metavar="S")
    parser.add_argument("--save-model", action="store_true", default=True)  # grill-corpus: False
    args = parser.parse_args()

    torch.manual_seed(args.seed)

    WORLD_SIZE = int(os.environ["WORLD_SIZE"])  # grill-corpus: torch.cuda.device_count()
    fsdp_main(int(os.environ["RANK"]), WORLD_SIZE, args)  # grill-corpus: mp.spawn(fsdp_main, ...)
