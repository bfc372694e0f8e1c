# grill-corpus: VARIANT of airbench_94.py: every step's summed loss is kept in `train_losses`.
# Modeled on KellerJordan/cifar10-airbench airbench94.py @ 01a2367af6ab (MIT License, Copyright
# (c) 2024 Keller Jordan); written for grill's realcode corpus. A script that reads its own code
# (`open(sys.argv[0])`) to log it with the results; a whitened first conv, a Lookahead-style EMA
# copied back into the net, label smoothing, a triangular LambdaLR schedule and a test-time
# augmentation pass.
import os
import sys
import time
import uuid
from math import ceil

import torch
import torch.nn.functional as F
from torch import nn

hyp = {
    "opt": {
        "train_epochs": 2.9,  # grill-corpus: 9.9 -> 2.9
        "batch_size": 32,  # grill-corpus: 1024 -> 32
        "lr": 11.5,  # learning rate per 1024 examples
        "momentum": 0.85,
        "weight_decay": 0.0153,  # per 1024 examples (decoupled from learning rate)
        "bias_scaler": 64.0,
        "label_smoothing": 0.2,
        "ema": {
            "start_epochs": 1,  # grill-corpus: 3 -> 1
            "decay_base": 0.95,
            "decay_pow": 3.0,
            "every_n_steps": 5,
        },
        "whiten_bias_epochs": 3,  # epochs to train the whitening layer bias before freezing
    },
    "aug": {"flip": True, "translate": 2},
    "net": {
        "whitening": {"kernel_size": 2},
        "batchnorm_momentum": 0.6,
        "base_width": 2,  # grill-corpus: 64 -> 2
        "scaling_factor": 1 / 9,
        "tta_level": 2,
    },
}

CIFAR_MEAN = torch.tensor((0.4914, 0.4822, 0.4465))
CIFAR_STD = torch.tensor((0.2470, 0.2435, 0.2616))


def batch_flip_lr(inputs):
    flip_mask = (torch.rand(len(inputs)) < 0.5).view(-1, 1, 1, 1)
    return torch.where(flip_mask, inputs.flip(-1), inputs)


def batch_crop(images, crop_size):
    r = (images.size(-1) - crop_size) // 2
    shifts = torch.randint(-r, r + 1, size=(len(images), 2))
    images_out = torch.empty((len(images), 3, crop_size, crop_size), dtype=images.dtype)
    for sy in range(-r, r + 1):
        for sx in range(-r, r + 1):
            mask = (shifts[:, 0] == sy) & (shifts[:, 1] == sx)
            images_out[mask] = images[mask, :, r + sy : r + sy + crop_size, r + sx : r + sx + crop_size]
    return images_out


class CifarLoader:
    def __init__(self, path, train=True, batch_size=500, aug=None, drop_last=None, shuffle=None):
        # grill-corpus: torchvision.datasets.CIFAR10 (saved to train.pt/test.pt) replaced by
        # random 32x32 uint8 images in memory; fp16 and channels_last dropped on CPU
        count = 256 if train else 128
        self.images = torch.randint(0, 256, (count, 32, 32, 3), dtype=torch.uint8)
        self.labels = torch.randint(0, 10, (count,))
        self.classes = [str(i) for i in range(10)]
        self.images = (self.images.float() / 255).permute(0, 3, 1, 2)
        self.proc_images = {}  # results of image processing done on the first epoch
        self.epoch = 0
        self.aug = aug or {}
        for k in self.aug.keys():
            assert k in ["flip", "translate"], "Unrecognized key: %s" % k
        self.batch_size = batch_size
        self.drop_last = train if drop_last is None else drop_last
        self.shuffle = train if shuffle is None else shuffle

    def normalize(self, images):  # grill-corpus: T.Normalize(CIFAR_MEAN, CIFAR_STD)
        return (images - CIFAR_MEAN.view(1, 3, 1, 1)) / CIFAR_STD.view(1, 3, 1, 1)

    def __len__(self):
        if self.drop_last:
            return len(self.images) // self.batch_size
        return ceil(len(self.images) / self.batch_size)

    def __iter__(self):
        if self.epoch == 0:
            images = self.proc_images["norm"] = self.normalize(self.images)
            if self.aug.get("flip", False):
                images = self.proc_images["flip"] = batch_flip_lr(images)
            pad = self.aug.get("translate", 0)
            if pad > 0:
                self.proc_images["pad"] = F.pad(images, (pad,) * 4, "reflect")
        if self.aug.get("translate", 0) > 0:
            images = batch_crop(self.proc_images["pad"], self.images.shape[-2])
        elif self.aug.get("flip", False):
            images = self.proc_images["flip"]
        else:
            images = self.proc_images["norm"]
        if self.aug.get("flip", False):
            if self.epoch % 2 == 1:
                images = images.flip(-1)
        self.epoch += 1
        indices = (torch.randperm if self.shuffle else torch.arange)(len(images))
        for i in range(len(self)):
            idxs = indices[i * self.batch_size : (i + 1) * self.batch_size]
            yield (images[idxs], self.labels[idxs])


class Flatten(nn.Module):
    def forward(self, x):
        return x.view(x.size(0), -1)


class Mul(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return x * self.scale


class BatchNorm(nn.BatchNorm2d):
    def __init__(self, num_features, eps=1e-12, momentum=hyp["net"]["batchnorm_momentum"], weight=False, bias=True):
        super().__init__(num_features, eps=eps, momentum=1 - momentum)
        self.weight.requires_grad = weight
        self.bias.requires_grad = bias


class Conv(nn.Conv2d):
    def __init__(self, in_channels, out_channels, kernel_size=3, padding="same", bias=False):
        super().__init__(in_channels, out_channels, kernel_size=kernel_size, padding=padding, bias=bias)

    def reset_parameters(self):
        super().reset_parameters()
        if self.bias is not None:
            self.bias.data.zero_()
        w = self.weight.data
        torch.nn.init.dirac_(w[: w.size(1)])  # an implicit residual via identity initialization


class ConvGroup(nn.Module):
    def __init__(self, channels_in, channels_out):
        super().__init__()
        self.conv1 = Conv(channels_in, channels_out)
        self.pool = nn.MaxPool2d(2)
        self.norm1 = BatchNorm(channels_out)
        self.conv2 = Conv(channels_out, channels_out)
        self.norm2 = BatchNorm(channels_out)
        self.activ = nn.GELU()

    def forward(self, x):
        x = self.activ(self.norm1(self.pool(self.conv1(x))))
        return self.activ(self.norm2(self.conv2(x)))


def make_net():
    widths = {
        "block1": (1 * hyp["net"]["base_width"]),
        "block2": (4 * hyp["net"]["base_width"]),
        "block3": (4 * hyp["net"]["base_width"]),
    }
    whiten_conv_width = 2 * 3 * hyp["net"]["whitening"]["kernel_size"] ** 2
    net = nn.Sequential(
        Conv(3, whiten_conv_width, kernel_size=hyp["net"]["whitening"]["kernel_size"], padding=0, bias=True),
        nn.GELU(),
        ConvGroup(whiten_conv_width, widths["block1"]),
        ConvGroup(widths["block1"], widths["block2"]),
        ConvGroup(widths["block2"], widths["block3"]),
        nn.MaxPool2d(3),
        Flatten(),
        nn.Linear(widths["block3"], 10, bias=False),
        Mul(hyp["net"]["scaling_factor"]),
    )
    net[0].weight.requires_grad = False
    return net  # grill-corpus: net.half().cuda() and channels_last dropped on CPU


def get_patches(x, patch_shape):
    c, (h, w) = x.shape[1], patch_shape
    return x.unfold(2, h, 1).unfold(3, w, 1).transpose(1, 3).reshape(-1, c, h, w).float()


def get_whitening_parameters(patches):
    n, c, h, w = patches.shape
    patches_flat = patches.view(n, -1)
    est_patch_covariance = (patches_flat.T @ patches_flat) / n
    eigenvalues, eigenvectors = torch.linalg.eigh(est_patch_covariance, UPLO="U")
    return eigenvalues.flip(0).view(-1, 1, 1, 1), eigenvectors.T.reshape(c * h * w, c, h, w).flip(0)


def init_whitening_conv(layer, train_set, eps=5e-4):
    patches = get_patches(train_set, patch_shape=layer.weight.data.shape[2:])
    eigenvalues, eigenvectors = get_whitening_parameters(patches)
    eigenvectors_scaled = eigenvectors / torch.sqrt(eigenvalues + eps)
    layer.weight.data[:] = torch.cat((eigenvectors_scaled, -eigenvectors_scaled))


class LookaheadState:
    def __init__(self, net):
        self.net_ema = {k: v.clone() for k, v in net.state_dict().items()}

    def update(self, net, decay):
        for ema_param, net_param in zip(self.net_ema.values(), net.state_dict().values()):
            if net_param.dtype in (torch.half, torch.float):
                ema_param.lerp_(net_param, 1 - decay)
                net_param.copy_(ema_param)  # copied back into the net, as Lookahead does


def print_columns(columns_list, is_head=False, is_final_entry=False):
    print_string = ""
    for col in columns_list:
        print_string += "|  %s  " % col
    print_string += "|"
    if is_head:
        print("-" * len(print_string))
    print(print_string)
    if is_head or is_final_entry:
        print("-" * len(print_string))


logging_columns_list = ["run   ", "epoch", "train_loss", "val_loss", "train_acc", "val_acc", "tta_val_acc", "total_time_seconds"]


def print_training_details(variables, is_final_entry):
    formatted = []
    for col in logging_columns_list:
        var = variables.get(col.strip(), None)
        if type(var) in (int, str):
            res = str(var)
        elif type(var) is float:
            res = "{:0.4f}".format(var)
        else:
            assert var is None
            res = ""
        formatted.append(res.rjust(len(col)))
    print_columns(formatted, is_final_entry=is_final_entry)


def main(run):
    batch_size = hyp["opt"]["batch_size"]
    epochs = hyp["opt"]["train_epochs"]
    momentum = hyp["opt"]["momentum"]
    kilostep_scale = 1024 * (1 + 1 / (1 - momentum))
    lr = hyp["opt"]["lr"] / kilostep_scale
    wd = hyp["opt"]["weight_decay"] * batch_size / kilostep_scale
    lr_biases = lr * hyp["opt"]["bias_scaler"]

    loss_fn = nn.CrossEntropyLoss(label_smoothing=hyp["opt"]["label_smoothing"], reduction="none")

    train_augs = dict(flip=hyp["aug"]["flip"], translate=hyp["aug"]["translate"])
    train_loader = CifarLoader("cifar10", train=True, batch_size=batch_size, aug=train_augs)
    test_loader = CifarLoader("cifar10", train=False, batch_size=128)
    if run == "warmup":
        train_loader.labels = torch.randint(0, 10, size=(len(train_loader.labels),))

    def triangle(steps, start=0, end=0, peak=0.5):
        xp = torch.tensor([0, int(peak * steps), steps])
        fp = torch.tensor([start, 1, end])
        x = torch.arange(1 + steps)
        m = (fp[1:] - fp[:-1]) / (xp[1:] - xp[:-1])
        b = fp[:-1] - (m * xp[:-1])
        indices = torch.sum(torch.ge(x[:, None], xp[None, :]), 1) - 1
        indices = torch.clamp(indices, 0, len(m) - 1)
        return m[indices] * x + b[indices]

    total_train_steps = ceil(len(train_loader) * epochs)
    lr_schedule = triangle(total_train_steps, start=0.2, end=0.07, peak=0.23)

    model = make_net()
    lookahead_state = None
    current_steps = 0
    train_losses = []  # grill-corpus: VARIANT

    norm_biases = [p for k, p in model.named_parameters() if "norm" in k and p.requires_grad]
    other_params = [p for k, p in model.named_parameters() if "norm" not in k and p.requires_grad]
    param_configs = [
        dict(params=norm_biases, lr=lr_biases, weight_decay=wd / lr_biases),
        dict(params=other_params, lr=lr, weight_decay=wd / lr),
    ]
    optimizer = torch.optim.SGD(param_configs, momentum=momentum, nesterov=True)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda i: lr_schedule[i])

    total_time_seconds = 0.0  # grill-corpus: torch.cuda.Event timing -> time.perf_counter()
    started = time.perf_counter()
    train_images = train_loader.normalize(train_loader.images[:256])
    init_whitening_conv(model[0], train_images)
    total_time_seconds += time.perf_counter() - started

    for epoch in range(ceil(epochs)):
        model[0].bias.requires_grad = epoch < hyp["opt"]["whiten_bias_epochs"]
        started = time.perf_counter()
        model.train()
        for inputs, labels in train_loader:
            outputs = model(inputs)
            loss = loss_fn(outputs, labels).sum()
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            scheduler.step()
            train_losses.append(loss)  # grill-corpus: VARIANT: the loss kept with its graph

            current_steps += 1

            if epoch >= hyp["opt"]["ema"]["start_epochs"] and current_steps % hyp["opt"]["ema"]["every_n_steps"] == 0:
                if lookahead_state is None:
                    lookahead_state = LookaheadState(model)
                else:
                    base_rho = hyp["opt"]["ema"]["decay_base"] ** hyp["opt"]["ema"]["every_n_steps"]
                    rho = base_rho * (current_steps / total_train_steps) ** hyp["opt"]["ema"]["decay_pow"]
                    lookahead_state.update(model, decay=rho)

            if current_steps >= total_train_steps:
                break

        if lookahead_state is not None:
            lookahead_state.update(model, decay=1.0)
        total_time_seconds += time.perf_counter() - started

        train_acc = (outputs.detach().argmax(1) == labels).float().mean().item()
        train_loss = loss.item() / batch_size

        model.eval()
        with torch.no_grad():
            loss_list, acc_list = [], []
            for inputs, labels in test_loader:
                outputs = model(inputs)
                loss_list.append(loss_fn(outputs, labels).float().mean())
                acc_list.append((outputs.argmax(1) == labels).float().mean())
            val_acc = torch.stack(acc_list).mean().item()
            val_loss = torch.stack(loss_list).mean().item()
        tta_val_acc = None

        print_training_details(locals(), is_final_entry=False)
        run = None  # print the run number once

    started = time.perf_counter()
    with torch.no_grad():
        test_images = test_loader.normalize(test_loader.images)
        test_labels = test_loader.labels

        def infer_basic(inputs, net):
            return net(inputs).clone()

        def infer_mirror(inputs, net):
            return 0.5 * net(inputs) + 0.5 * net(inputs.flip(-1))

        def infer_mirror_translate(inputs, net):
            logits = infer_mirror(inputs, net)
            pad = 1
            padded_inputs = F.pad(inputs, (pad,) * 4, "reflect")
            inputs_translate_list = [padded_inputs[:, :, 0:32, 0:32], padded_inputs[:, :, 2:34, 2:34]]
            logits_translate_list = [infer_mirror(inputs_translate, net) for inputs_translate in inputs_translate_list]
            logits_translate = torch.stack(logits_translate_list).mean(0)
            return 0.5 * logits + 0.5 * logits_translate

        if hyp["net"]["tta_level"] == 0:
            infer_fn = infer_basic
        elif hyp["net"]["tta_level"] == 1:
            infer_fn = infer_mirror
        elif hyp["net"]["tta_level"] == 2:
            infer_fn = infer_mirror_translate

        model.eval()
        logits_tta = torch.cat([infer_fn(inputs, model) for inputs in test_images.split(128)])
        tta_val_acc = (logits_tta.argmax(1) == test_labels).float().mean().item()
    total_time_seconds += time.perf_counter() - started

    epoch = "eval"
    print_training_details(locals(), is_final_entry=True)
    return tta_val_acc


if __name__ == "__main__":
    with open(sys.argv[0]) as f:
        code = f.read()

    print_columns(logging_columns_list, is_head=True)
    accs = torch.tensor([main(run) for run in range(1)])  # grill-corpus: 25 runs -> 1
    print("Mean: %.4f    Std: %.4f" % (accs.mean(), accs.std()))

    log = {"code": code, "accs": accs}
    log_dir = os.path.join("logs", str(uuid.uuid4()))
    os.makedirs(log_dir, exist_ok=True)
    log_path = os.path.join(log_dir, "log.pt")
    print(os.path.abspath(log_path))
    torch.save(log, os.path.join(log_dir, "log.pt"))
