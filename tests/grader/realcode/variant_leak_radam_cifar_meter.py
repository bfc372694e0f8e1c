# grill-corpus: VARIANT of radam_cifar.py: train() records the loss tensor in its AverageMeter, so the Logger keeps every epoch's chained average.
# Modeled on LiyuanLucasLiu/RAdam cifar_imagenet/cifar.py and cifar_imagenet/utils/radam.py @
# 40482eabf4bc (Apache-2.0 License, Copyright (c) 2019 Liyuan Liu; cifar.py Copyright (c) Wei
# Yang, 2017) and the utils package beside them; written for grill's realcode corpus. A custom
# optimizer: RAdam, a subclass of torch.optim.Optimizer whose step() works on `p.data` in fp32
# (no torch.no_grad()), with a ring buffer of step sizes kept on the optimizer; the script keeps
# AverageMeters, a Logger that records every appended number, and a step LR schedule by hand.
from __future__ import print_function

import argparse
import math
import os
import random
import shutil
import time

import torch
import torch.nn as nn
import torch.optim as optim
import torch.utils.data as data
from torch.optim.optimizer import Optimizer

# ---- utils/radam.py ----


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0):
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
        self.buffer = [[None, None, None] for ind in range(10)]
        super(RAdam, self).__init__(params, defaults)

    def __setstate__(self, state):
        super(RAdam, self).__setstate__(state)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            loss = closure()

        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad.data.float()
                if grad.is_sparse:
                    raise RuntimeError("RAdam does not support sparse gradients")

                p_data_fp32 = p.data.float()

                state = self.state[p]

                if len(state) == 0:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p_data_fp32)
                    state["exp_avg_sq"] = torch.zeros_like(p_data_fp32)
                else:
                    state["exp_avg"] = state["exp_avg"].type_as(p_data_fp32)
                    state["exp_avg_sq"] = state["exp_avg_sq"].type_as(p_data_fp32)

                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                beta1, beta2 = group["betas"]

                # grill-corpus: add_(scalar, tensor) and addcmul_(scalar, t1, t2), removed from
                # torch, written with alpha=/value=
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)

                state["step"] += 1
                buffered = self.buffer[int(state["step"] % 10)]
                if state["step"] == buffered[0]:
                    N_sma, step_size = buffered[1], buffered[2]
                else:
                    buffered[0] = state["step"]
                    beta2_t = beta2 ** state["step"]
                    N_sma_max = 2 / (1 - beta2) - 1
                    N_sma = N_sma_max - 2 * state["step"] * beta2_t / (1 - beta2_t)
                    buffered[1] = N_sma

                    # more conservative since it's an approximated value
                    if N_sma >= 5:
                        step_size = (
                            group["lr"]
                            * math.sqrt(
                                (1 - beta2_t) * (N_sma - 4) / (N_sma_max - 4) * (N_sma - 2) / N_sma * N_sma_max / (N_sma_max - 2)
                            )
                            / (1 - beta1 ** state["step"])
                        )
                    else:
                        step_size = group["lr"] / (1 - beta1 ** state["step"])
                    buffered[2] = step_size

                if group["weight_decay"] != 0:
                    p_data_fp32.add_(p_data_fp32, alpha=-group["weight_decay"] * group["lr"])

                # more conservative since it's an approximated value
                if N_sma >= 5:
                    denom = exp_avg_sq.sqrt().add_(group["eps"])
                    p_data_fp32.addcdiv_(exp_avg, denom, value=-step_size)
                else:
                    p_data_fp32.add_(exp_avg, alpha=-step_size)

                p.data.copy_(p_data_fp32)

        return loss


# ---- utils/misc.py, utils/logger.py, utils/eval.py (grill-corpus: progress.bar's Bar and
# matplotlib's savefig are not installed; Bar is a few lines, the plot is dropped) ----


class AverageMeter(object):
    """Computes and stores the average and current value"""

    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def accuracy(output, target, topk=(1,)):
    """Computes the precision@k for the specified values of k"""
    maxk = max(topk)
    batch_size = target.size(0)

    _, pred = output.topk(maxk, 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.view(1, -1).expand_as(pred))

    res = []
    for k in topk:
        correct_k = correct[:k].reshape(-1).float().sum(0)
        res.append(correct_k.mul_(100.0 / batch_size))
    return res


def mkdir_p(path):
    """make dir if not exist"""
    os.makedirs(path, exist_ok=True)


class Bar(object):
    def __init__(self, message, max=0):
        self.message, self.max, self.index, self.suffix = message, max, 0, ""
        self.start = time.time()
        self.elapsed_td = self.eta_td = "0:00:00"

    def next(self):
        self.index += 1

    def finish(self):
        print("%s %s" % (self.message, self.suffix))


class Logger(object):
    """Save training process to log file with simple plot function."""

    def __init__(self, fpath, title=None, resume=False):
        self.file = None
        self.resume = resume
        self.title = "" if title is None else title
        if fpath is not None:
            self.file = open(fpath, "w")

    def set_names(self, names):
        # initialize numbers as empty list
        self.numbers = {}
        self.names = names
        for _, name in enumerate(self.names):
            self.file.write(name)
            self.file.write("\t")
            self.numbers[name] = []
        self.file.write("\n")
        self.file.flush()

    def append(self, numbers):
        assert len(self.names) == len(numbers), "Numbers do not match names"
        for index, num in enumerate(numbers):
            self.file.write("{0:.6f}".format(num))
            self.file.write("\t")
            self.numbers[self.names[index]].append(num)
        self.file.write("\n")
        self.file.flush()

    def close(self):
        if self.file is not None:
            self.file.close()


# ---- models/cifar (grill-corpus: the depth-20 CIFAR ResNet shrunk to one BasicBlock per stage) ----


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super(BasicBlock, self).__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample

    def forward(self, x):
        residual = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            residual = self.downsample(x)
        return self.relu(out + residual)


class ResNet(nn.Module):
    def __init__(self, num_classes=10):
        super(ResNet, self).__init__()
        self.conv1 = nn.Conv2d(3, 4, kernel_size=3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(4)
        self.relu = nn.ReLU(inplace=True)
        self.layer1 = BasicBlock(4, 4)
        self.layer2 = BasicBlock(4, 8, 2, nn.Sequential(nn.Conv2d(4, 8, 1, stride=2, bias=False), nn.BatchNorm2d(8)))
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, num_classes)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.layer2(self.layer1(x))
        return self.fc(self.avgpool(x).flatten(1))


parser = argparse.ArgumentParser(description="PyTorch CIFAR10/100 Training")
# Datasets
parser.add_argument("-d", "--dataset", default="cifar10", type=str)
parser.add_argument("-j", "--workers", default=0, type=int, metavar="N", help="number of data loading workers (default: 4)")  # grill-corpus: 4 -> 0
# Optimization options
parser.add_argument("--epochs", default=4, type=int, metavar="N", help="number of total epochs to run")  # grill-corpus: 300 -> 4
parser.add_argument("--start-epoch", default=0, type=int, metavar="N", help="manual epoch number (useful on restarts)")
parser.add_argument("--train-batch", default=16, type=int, metavar="N", help="train batchsize")  # grill-corpus: 128 -> 16
parser.add_argument("--test-batch", default=32, type=int, metavar="N", help="test batchsize")  # grill-corpus: 100 -> 32
# grill-corpus: default 'sgd' -> 'radam', as the recipes run it (radam4s and adamw left out)
parser.add_argument("--optimizer", default="radam", type=str, choices=["radam", "sgd"])
parser.add_argument("--lr", "--learning-rate", default=0.1, type=float, metavar="LR", help="initial learning rate")
parser.add_argument("--beta1", default=0.9, type=float, help="beta1 for adam")
parser.add_argument("--beta2", default=0.999, type=float, help="beta2 for adam")
parser.add_argument("--schedule", type=int, nargs="+", default=[2, 3], help="Decrease learning rate at these epochs.")  # grill-corpus: [150, 225] -> [2, 3]
parser.add_argument("--gamma", type=float, default=0.1, help="LR is multiplied by gamma on schedule.")
parser.add_argument("--momentum", default=0.9, type=float, metavar="M", help="momentum")
parser.add_argument("--weight-decay", "--wd", default=5e-4, type=float, metavar="W", help="weight decay (default: 1e-4)")
# Checkpoints
parser.add_argument("-c", "--checkpoint", default="checkpoint", type=str, metavar="PATH", help="path to save checkpoint (default: checkpoint)")
# Miscs
parser.add_argument("--manualSeed", type=int, help="manual seed")
parser.add_argument("-e", "--evaluate", dest="evaluate", action="store_true", help="evaluate model on validation set")

args = parser.parse_args()
state = {k: v for k, v in args._get_kwargs()}

# Validate dataset
assert args.dataset == "cifar10" or args.dataset == "cifar100", "Dataset can only be cifar10 or cifar100."

use_cuda = False  # grill-corpus: torch.cuda.is_available(); graded on CPU

# Random seed
if args.manualSeed is None:
    args.manualSeed = random.randint(1, 10000)
random.seed(args.manualSeed)
torch.manual_seed(args.manualSeed)

best_acc = 0  # best test accuracy


def main():
    global best_acc
    start_epoch = args.start_epoch  # start from epoch 0 or last checkpoint epoch

    if not os.path.isdir(args.checkpoint):
        mkdir_p(args.checkpoint)

    # Data (grill-corpus: torchvision's CIFAR10 with RandomCrop/Flip/Normalize replaced by random
    # normalized 3x16x16 images)
    print("==> Preparing dataset %s" % args.dataset)
    num_classes = 10
    trainset = data.TensorDataset(torch.randn(128, 3, 16, 16), torch.randint(0, num_classes, (128,)))
    trainloader = data.DataLoader(trainset, batch_size=args.train_batch, shuffle=True, num_workers=args.workers)
    testset = data.TensorDataset(torch.randn(64, 3, 16, 16), torch.randint(0, num_classes, (64,)))
    testloader = data.DataLoader(testset, batch_size=args.test_batch, shuffle=False, num_workers=args.workers)

    # Model
    print("==> creating model 'resnet'")
    model = ResNet(num_classes=num_classes)  # grill-corpus: torch.nn.DataParallel(model).cuda() dropped
    print("    Total params: %.2fM" % (sum(p.numel() for p in model.parameters()) / 1000000.0))
    criterion = nn.CrossEntropyLoss()
    if args.optimizer.lower() == "sgd":
        optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum, weight_decay=args.weight_decay)
    elif args.optimizer.lower() == "radam":
        optimizer = RAdam(model.parameters(), lr=args.lr, betas=(args.beta1, args.beta2), weight_decay=args.weight_decay)
    title = "cifar-10-resnet"
    logger = Logger(os.path.join(args.checkpoint, "log.txt"), title=title)
    logger.set_names(["Learning Rate", "Train Loss", "Valid Loss", "Train Acc.", "Valid Acc."])

    if args.evaluate:
        print("\nEvaluation only")
        test_loss, test_acc = test(testloader, model, criterion, start_epoch, use_cuda)
        print(" Test Loss:  %.8f, Test Acc:  %.2f" % (test_loss, test_acc))
        return

    # Train and val
    for epoch in range(start_epoch, args.epochs):
        adjust_learning_rate(optimizer, epoch)

        print("\nEpoch: [%d | %d] LR: %f" % (epoch + 1, args.epochs, state["lr"]))

        train_loss, train_acc = train(trainloader, model, criterion, optimizer, epoch, use_cuda)
        test_loss, test_acc = test(testloader, model, criterion, epoch, use_cuda)

        # append logger file
        logger.append([state["lr"], train_loss, test_loss, train_acc, test_acc])

        # save model
        is_best = test_acc > best_acc
        best_acc = max(test_acc, best_acc)
        save_checkpoint(
            {
                "epoch": epoch + 1,
                "state_dict": model.state_dict(),
                "acc": test_acc,
                "best_acc": best_acc,
                "optimizer": optimizer.state_dict(),
            },
            is_best,
            checkpoint=args.checkpoint,
        )

    logger.close()

    print("Best acc:")
    print(best_acc)


def train(trainloader, model, criterion, optimizer, epoch, use_cuda):
    # switch to train mode
    model.train()

    batch_time = AverageMeter()
    data_time = AverageMeter()
    losses = AverageMeter()
    top1 = AverageMeter()
    top5 = AverageMeter()
    end = time.time()

    bar = Bar("Processing", max=len(trainloader))
    for batch_idx, (inputs, targets) in enumerate(trainloader):
        # measure data loading time
        data_time.update(time.time() - end)

        inputs, targets = torch.autograd.Variable(inputs), torch.autograd.Variable(targets)

        # compute output
        outputs = model(inputs)
        loss = criterion(outputs, targets)

        # measure accuracy and record loss
        prec1, prec5 = accuracy(outputs.data, targets.data, topk=(1, 5))
        losses.update(loss, inputs.size(0))  # grill-corpus: VARIANT: the loss tensor, not loss.item()
        top1.update(prec1.item(), inputs.size(0))
        top5.update(prec5.item(), inputs.size(0))

        # compute gradient and do SGD step
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        # measure elapsed time
        batch_time.update(time.time() - end)
        end = time.time()

        # plot progress
        bar.suffix = "({batch}/{size}) Data: {data:.3f}s | Batch: {bt:.3f}s | Loss: {loss:.4f} | top1: {top1: .4f} | top5: {top5: .4f}".format(
            batch=batch_idx + 1,
            size=len(trainloader),
            data=data_time.avg,
            bt=batch_time.avg,
            loss=losses.avg,
            top1=top1.avg,
            top5=top5.avg,
        )
        bar.next()
    bar.finish()
    return (losses.avg, top1.avg)


def test(testloader, model, criterion, epoch, use_cuda):
    global best_acc

    batch_time = AverageMeter()
    data_time = AverageMeter()
    losses = AverageMeter()
    top1 = AverageMeter()
    top5 = AverageMeter()

    # switch to evaluate mode
    model.eval()

    end = time.time()
    bar = Bar("Processing", max=len(testloader))
    for batch_idx, (inputs, targets) in enumerate(testloader):
        # measure data loading time
        data_time.update(time.time() - end)

        # grill-corpus: Variable(inputs, volatile=True); volatile has long been a no-op, so this
        # evaluation builds graphs, as the source's does today
        inputs, targets = torch.autograd.Variable(inputs), torch.autograd.Variable(targets)

        # compute output
        outputs = model(inputs)
        loss = criterion(outputs, targets)

        # measure accuracy and record loss
        prec1, prec5 = accuracy(outputs.data, targets.data, topk=(1, 5))
        losses.update(loss.item(), inputs.size(0))
        top1.update(prec1.item(), inputs.size(0))
        top5.update(prec5.item(), inputs.size(0))

        # measure elapsed time
        batch_time.update(time.time() - end)
        end = time.time()

        bar.suffix = "({batch}/{size}) Loss: {loss:.4f} | top1: {top1: .4f}".format(
            batch=batch_idx + 1, size=len(testloader), loss=losses.avg, top1=top1.avg
        )
        bar.next()
    bar.finish()
    return (losses.avg, top1.avg)


def save_checkpoint(state, is_best, checkpoint="checkpoint", filename="checkpoint.pth.tar"):
    filepath = os.path.join(checkpoint, filename)
    torch.save(state, filepath)
    if is_best:
        shutil.copyfile(filepath, os.path.join(checkpoint, "model_best.pth.tar"))


def adjust_learning_rate(optimizer, epoch):
    global state
    if epoch in args.schedule:
        state["lr"] *= args.gamma
        for param_group in optimizer.param_groups:
            param_group["lr"] = state["lr"]


if __name__ == "__main__":
    main()
