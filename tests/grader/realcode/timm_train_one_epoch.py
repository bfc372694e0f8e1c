#!/usr/bin/env python3
""" ImageNet Training Script

Modeled on huggingface/pytorch-image-models train.py (train_one_epoch, validate, main's optimizer,
scheduler, EMA and AMP setup) and timm/utils (AverageMeter, accuracy, ModelEmaV3, mixup)
@ aa4b585 (Apache License 2.0, Copyright 2020 Ross Wightman); written for grill's realcode corpus.
"""
import argparse
import copy
import logging
import math
import time
from collections import OrderedDict
from contextlib import suppress
from functools import partial

import torch
import torch.nn as nn
import torch.nn.functional as F

# grill-corpus: timm is not installed; the few timm pieces this loop needs are written below

_logger = logging.getLogger('train')


class AverageMeter:
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
    """Computes the accuracy over the k top predictions for the specified values of k"""
    maxk = min(max(topk), output.size()[1])
    batch_size = target.size(0)
    _, pred = output.topk(maxk, 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.reshape(1, -1).expand_as(pred))
    return [correct[:min(k, maxk)].reshape(-1).float().sum(0) * 100. / batch_size for k in topk]


class SoftTargetCrossEntropy(nn.Module):
    def __init__(self):
        super(SoftTargetCrossEntropy, self).__init__()

    def forward(self, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        loss = torch.sum(-target * F.log_softmax(x, dim=-1), dim=-1)
        return loss.mean()


def one_hot(x, num_classes, on_value=1., off_value=0.):
    x = x.long().view(-1, 1)
    return torch.full((x.size()[0], num_classes), off_value, device=x.device).scatter_(1, x, on_value)


class Mixup:
    """ Mixup that applies different params to each element or whole batch (batch mode only here) """
    def __init__(self, mixup_alpha=1., label_smoothing=0.1, num_classes=1000):
        self.mixup_alpha = mixup_alpha
        self.label_smoothing = label_smoothing
        self.num_classes = num_classes
        self.mixup_enabled = True

    def __call__(self, x, target):
        assert len(x) % 2 == 0, 'Batch size should be even when using this'
        lam = float(torch.distributions.Beta(self.mixup_alpha, self.mixup_alpha).sample())
        x_flipped = x.flip(0).mul_(1. - lam)
        x.mul_(lam).add_(x_flipped)
        off_value = self.label_smoothing / self.num_classes
        on_value = 1. - self.label_smoothing + off_value
        y1 = one_hot(target, self.num_classes, on_value=on_value, off_value=off_value)
        y2 = one_hot(target.flip(0), self.num_classes, on_value=on_value, off_value=off_value)
        return x, y1 * lam + y2 * (1. - lam)


class ModelEmaV3(nn.Module):
    """ Model Exponential Moving Average V3 (without warmup or device options) """
    def __init__(self, model, decay=0.9999):
        super().__init__()
        self.module = copy.deepcopy(model)
        self.module.eval()
        self.decay = decay

    @torch.no_grad()
    def update(self, model, step=None):
        ema_lerp_values = []
        model_lerp_values = []
        for ema_v, model_v in zip(self.module.state_dict().values(), model.state_dict().values()):
            if ema_v.is_floating_point():
                ema_lerp_values.append(ema_v)
                model_lerp_values.append(model_v)
            else:
                ema_v.copy_(model_v)
        torch._foreach_lerp_(ema_lerp_values, model_lerp_values, weight=1. - self.decay)

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)


def param_groups_weight_decay(model, weight_decay=1e-5, no_weight_decay_list=()):
    no_weight_decay_list = set(no_weight_decay_list)
    decay = []
    no_decay = []
    for name, param in model.named_parameters():
        if not param.requires_grad:
            continue

        if param.ndim <= 1 or name.endswith(".bias") or name in no_weight_decay_list:
            no_decay.append(param)
        else:
            decay.append(param)

    return [
        {'params': no_decay, 'weight_decay': 0.},
        {'params': decay, 'weight_decay': weight_decay}]


class CosineLRScheduler:
    """ Cosine decay with warmup, stepped per update (step_update) and per epoch (step) """
    def __init__(self, optimizer, t_initial, lr_min=0., warmup_t=0, warmup_lr_init=0.):
        self.optimizer = optimizer
        self.t_initial = t_initial
        self.lr_min = lr_min
        self.warmup_t = warmup_t
        self.warmup_lr_init = warmup_lr_init
        self.base_values = [group['lr'] for group in optimizer.param_groups]
        if self.warmup_t:
            self.warmup_steps = [(v - warmup_lr_init) / self.warmup_t for v in self.base_values]
        else:
            self.warmup_steps = [1 for _ in self.base_values]

    def _get_lr(self, t):
        if t < self.warmup_t:
            return [self.warmup_lr_init + t * s for s in self.warmup_steps]
        t = t - self.warmup_t
        return [self.lr_min + 0.5 * (lr_max - self.lr_min) * (1 + math.cos(math.pi * t / self.t_initial))
                for lr_max in self.base_values]

    def step_update(self, num_updates, metric=None):
        for param_group, value in zip(self.optimizer.param_groups, self._get_lr(num_updates)):
            param_group['lr'] = value

    def step(self, epoch, metric=None):
        pass


parser = argparse.ArgumentParser(description='PyTorch ImageNet Training')
parser.add_argument('--model', default='tiny_convnet', type=str, metavar='MODEL')
parser.add_argument('-b', '--batch-size', type=int, default=16, metavar='N')  # grill-corpus: 128 -> 16
parser.add_argument('--epochs', type=int, default=2, metavar='N')  # grill-corpus: 300 -> 2
parser.add_argument('--lr', type=float, default=0.01, metavar='LR')
parser.add_argument('--weight-decay', type=float, default=2e-5)
parser.add_argument('--clip-grad', type=float, default=1.0, metavar='NORM')
parser.add_argument('--clip-mode', type=str, default='norm')
parser.add_argument('--grad-accum-steps', type=int, default=2, metavar='N')
parser.add_argument('--warmup-epochs', type=int, default=1)
parser.add_argument('--mixup', type=float, default=0.8)
parser.add_argument('--smoothing', type=float, default=0.1)
parser.add_argument('--mixup-off-epoch', default=0, type=int)
parser.add_argument('--model-ema', action='store_true', default=True)
parser.add_argument('--model-ema-decay', type=float, default=0.998)
parser.add_argument('--amp', action='store_true', default=True, help='use bfloat16 autocast (CPU)')
parser.add_argument('--amp-dtype', default='bfloat16', type=str)
parser.add_argument('--channels-last', action='store_true', default=True)
parser.add_argument('--log-interval', type=int, default=2)
parser.add_argument('--distributed', action='store_true', default=False)
parser.add_argument('--prefetcher', action='store_true', default=False)


def create_model(num_classes=10):
    # grill-corpus: timm.create_model(args.model, ...) replaced by a small ConvNet
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, 2, 1), nn.BatchNorm2d(8), nn.ReLU(),
        nn.Conv2d(8, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.1), nn.Linear(16, num_classes))


def train_one_epoch(
        epoch,
        model,
        loader,
        optimizer,
        loss_fn,
        args,
        device=torch.device('cuda'),
        lr_scheduler=None,
        amp_autocast=suppress,
        loss_scaler=None,
        model_ema=None,
        mixup_fn=None,
):
    if args.mixup_off_epoch and epoch >= args.mixup_off_epoch:
        if mixup_fn is not None:
            mixup_fn.mixup_enabled = False

    second_order = hasattr(optimizer, 'is_second_order') and optimizer.is_second_order
    has_no_sync = hasattr(model, "no_sync")
    update_time_m = AverageMeter()
    data_time_m = AverageMeter()
    losses_m = AverageMeter()

    model.train()

    accum_steps = args.grad_accum_steps
    last_accum_steps = len(loader) % accum_steps
    updates_per_epoch = (len(loader) + accum_steps - 1) // accum_steps
    num_updates = epoch * updates_per_epoch
    last_batch_idx = len(loader) - 1
    last_batch_idx_to_accum = len(loader) - last_accum_steps

    data_start_time = update_start_time = time.time()
    optimizer.zero_grad()
    update_sample_count = 0
    for batch_idx, (input, target) in enumerate(loader):
        last_batch = batch_idx == last_batch_idx
        need_update = last_batch or (batch_idx + 1) % accum_steps == 0
        update_idx = batch_idx // accum_steps
        if batch_idx >= last_batch_idx_to_accum:
            accum_steps = last_accum_steps

        if not args.prefetcher:
            input, target = input.to(device), target.to(device)
            if mixup_fn is not None:
                input, target = mixup_fn(input, target)
        if args.channels_last:
            input = input.contiguous(memory_format=torch.channels_last)

        # multiply by accum steps to get equivalent for full update
        data_time_m.update(accum_steps * (time.time() - data_start_time))

        def _forward():
            with amp_autocast():
                output = model(input)
                loss = loss_fn(output, target)
            if accum_steps > 1:
                loss /= accum_steps
            return loss

        def _backward(_loss):
            if loss_scaler is not None:
                loss_scaler(_loss, optimizer, clip_grad=args.clip_grad, clip_mode=args.clip_mode,
                            parameters=model.parameters(), create_graph=second_order, need_update=need_update)
            else:
                _loss.backward(create_graph=second_order)
                if need_update:
                    if args.clip_grad is not None:
                        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad)
                    optimizer.step()

        if has_no_sync and not need_update:
            with model.no_sync():
                loss = _forward()
                _backward(loss)
        else:
            loss = _forward()
            _backward(loss)

        if not args.distributed:
            losses_m.update(loss.item() * accum_steps, input.size(0))
        update_sample_count += input.size(0)

        if not need_update:
            data_start_time = time.time()
            continue

        num_updates += 1
        optimizer.zero_grad()
        if model_ema is not None:
            model_ema.update(model, step=num_updates)

        time_now = time.time()
        update_time_m.update(time.time() - update_start_time)
        update_start_time = time_now

        if update_idx % args.log_interval == 0:
            lrl = [param_group['lr'] for param_group in optimizer.param_groups]
            lr = sum(lrl) / len(lrl)

            _logger.info(
                f'Train: {epoch} [{update_idx:>4d}/{updates_per_epoch} '
                f'({100. * (update_idx + 1) / updates_per_epoch:>3.0f}%)]  '
                f'Loss: {losses_m.val:#.3g} ({losses_m.avg:#.3g})  '
                f'LR: {lr:.3e}'
            )
            print(f'Train: {epoch} [{update_idx}/{updates_per_epoch}] Loss: {losses_m.val:#.3g} ({losses_m.avg:#.3g}) LR: {lr:.3e}')

        if lr_scheduler is not None:
            lr_scheduler.step_update(num_updates=num_updates, metric=losses_m.avg)

        update_sample_count = 0
        data_start_time = time.time()
        # end for

    return OrderedDict([('loss', losses_m.avg)])


def validate(model, loader, loss_fn, args, device=torch.device('cuda'), amp_autocast=suppress, log_suffix=''):
    batch_time_m = AverageMeter()
    losses_m = AverageMeter()
    top1_m = AverageMeter()
    top5_m = AverageMeter()

    model.eval()

    end = time.time()
    last_idx = len(loader) - 1
    with torch.no_grad():
        for batch_idx, (input, target) in enumerate(loader):
            last_batch = batch_idx == last_idx
            input = input.to(device)
            target = target.to(device)
            if args.channels_last:
                input = input.contiguous(memory_format=torch.channels_last)

            with amp_autocast():
                output = model(input)
                if isinstance(output, (tuple, list)):
                    output = output[0]

                loss = loss_fn(output, target)
            acc1, acc5 = accuracy(output, target, topk=(1, 5))

            reduced_loss = loss.data

            losses_m.update(reduced_loss.item(), input.size(0))
            top1_m.update(acc1.item(), output.size(0))
            top5_m.update(acc5.item(), output.size(0))

            batch_time_m.update(time.time() - end)
            end = time.time()
            if last_batch or batch_idx % args.log_interval == 0:
                log_name = 'Test' + log_suffix
                print(f'{log_name}: [{batch_idx:>4d}/{last_idx}]  Loss: {losses_m.val:>7.3f} ({losses_m.avg:>6.3f})  '
                      f'Acc@1: {top1_m.val:>7.3f} ({top1_m.avg:>7.3f})  Acc@5: {top5_m.val:>7.3f} ({top5_m.avg:>7.3f})')

    metrics = OrderedDict([('loss', losses_m.avg), ('top1', top1_m.avg), ('top5', top5_m.avg)])

    return metrics


def main():
    logging.basicConfig(level=logging.INFO)
    args = parser.parse_args()
    device = torch.device('cpu')  # grill-corpus: utils.init_distributed_device(args) on CUDA
    torch.manual_seed(42)

    model = create_model()
    if args.channels_last:
        model.to(memory_format=torch.channels_last)

    optimizer = torch.optim.AdamW(param_groups_weight_decay(model, args.weight_decay), lr=args.lr)

    amp_autocast = suppress  # do nothing
    loss_scaler = None
    if args.amp:
        amp_dtype = torch.bfloat16 if args.amp_dtype == 'bfloat16' else torch.float16
        amp_autocast = partial(torch.autocast, device_type=device.type, dtype=amp_dtype)
        _logger.info('Using native Torch AMP. Training in mixed precision.')

    model_ema = None
    if args.model_ema:
        model_ema = ModelEmaV3(model, decay=args.model_ema_decay)

    # grill-corpus: create_dataset/create_loader replaced by random 3x16x16 images
    dataset_train = torch.utils.data.TensorDataset(torch.randn(96, 3, 16, 16), torch.randint(0, 10, (96,)))
    dataset_eval = torch.utils.data.TensorDataset(torch.randn(32, 3, 16, 16), torch.randint(0, 10, (32,)))
    loader_train = torch.utils.data.DataLoader(dataset_train, batch_size=args.batch_size, shuffle=True, drop_last=True)
    loader_eval = torch.utils.data.DataLoader(dataset_eval, batch_size=args.batch_size)

    mixup_fn = None
    if args.mixup > 0:
        mixup_fn = Mixup(mixup_alpha=args.mixup, label_smoothing=args.smoothing, num_classes=10)
        train_loss_fn = SoftTargetCrossEntropy()
    else:
        train_loss_fn = nn.CrossEntropyLoss(label_smoothing=args.smoothing)
    validate_loss_fn = nn.CrossEntropyLoss()

    updates_per_epoch = (len(loader_train) + args.grad_accum_steps - 1) // args.grad_accum_steps
    lr_scheduler = CosineLRScheduler(optimizer, t_initial=args.epochs * updates_per_epoch,
                                     warmup_t=args.warmup_epochs * updates_per_epoch, warmup_lr_init=1e-5)

    best_metric = None
    for epoch in range(args.epochs):
        train_metrics = train_one_epoch(
            epoch, model, loader_train, optimizer, train_loss_fn, args,
            device=device, lr_scheduler=lr_scheduler, amp_autocast=amp_autocast,
            loss_scaler=loss_scaler, model_ema=model_ema, mixup_fn=mixup_fn)

        eval_metrics = validate(model, loader_eval, validate_loss_fn, args, device=device, amp_autocast=amp_autocast)

        if model_ema is not None:
            ema_eval_metrics = validate(model_ema, loader_eval, validate_loss_fn, args, device=device,
                                        amp_autocast=amp_autocast, log_suffix=' (EMA)')
            eval_metrics = ema_eval_metrics

        if lr_scheduler is not None:
            lr_scheduler.step(epoch + 1, eval_metrics['top1'])

        if best_metric is None or eval_metrics['top1'] > best_metric:
            best_metric = eval_metrics['top1']
        print(f'epoch {epoch}: train {train_metrics["loss"]:.4f} eval top1 {eval_metrics["top1"]:.2f}')

    print('*** Best metric: {0}'.format(best_metric))


if __name__ == '__main__':
    main()
