# Modeled on KellerJordan/modded-nanogpt records/track_1_short/2024-10-14_ModernArch/train_gpt2.py
# @ f411b3d3 (MIT License, Copyright (c) 2024 Keller Jordan); written for grill's realcode corpus.
# grill-corpus: one process on CPU: no torch.distributed, DDP or CUDA; the DistributedDataLoader
# reads random token shards made in memory (numpy is not installed), not fineweb .bin files.
# grill-corpus: @torch.compile on the Newton-Schulz iteration and torch.compile(model) dropped
# (compilation is not offered); bfloat16 kept out (CPU); the nvidia-smi log dropped.
# grill-corpus: sizes shrunk: 12 layers of 768 -> 2 of 32, vocab 50304 -> 64, 5100 steps -> 40.
import os
import sys

with open(sys.argv[0]) as f:
    code = f.read()  # read the code of this file ASAP, for logging
import time
import uuid
from dataclasses import dataclass

import torch
import torch._inductor.config as config
import torch.nn.functional as F
from torch import nn


def zeropower_via_svd(G, steps=None):
    U, S, V = G.svd()
    return U @ V.T


def zeropower_via_newtonschulz5(G, steps=10, eps=1e-7):
    assert len(G.shape) == 2
    a, b, c = (3.4445, -4.7750, 2.0315)
    X = G.clone()  # grill-corpus: G.bfloat16() on CPU
    X /= X.norm() + eps  # ensure top singular value <= 1
    if G.size(0) > G.size(1):
        X = X.T
    for _ in range(steps):
        A = X @ X.T
        B = A @ X
        X = a * X + b * B + c * A @ B
    if G.size(0) > G.size(1):
        X = X.T
    return X


zeropower_backends = dict(svd=zeropower_via_svd, newtonschulz5=zeropower_via_newtonschulz5)


class Muon(torch.optim.Optimizer):
    """MomentUm Orthogonalized by Newton-schulz: SGD-momentum, each 2D update orthogonalized."""

    def __init__(self, params, lr=3e-4, momentum=0.95, nesterov=True, backend="newtonschulz5", backend_steps=5):
        defaults = dict(lr=lr, momentum=momentum, nesterov=nesterov, backend=backend, backend_steps=backend_steps)
        super().__init__(params, defaults)

    def step(self):
        for group in self.param_groups:
            lr = group["lr"]
            momentum = group["momentum"]
            zeropower_backend = zeropower_backends[group["backend"]]
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                state = self.state[p]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = torch.zeros_like(g)
                buf = state["momentum_buffer"]
                buf.mul_(momentum).add_(g)
                if group["nesterov"]:
                    g = g.add(buf, alpha=momentum)
                if g.size(0) == 3 * g.size(1):  # split grouped QKV parameters
                    g = torch.cat([zeropower_backend(g1, steps=group["backend_steps"]) for g1 in g.split(g.size(1))])
                    scale = g.size(1) ** 0.5
                else:
                    g = zeropower_backend(g, steps=group["backend_steps"])
                    scale = max(g.size(0), g.size(1)) ** 0.5
                p.data.add_(g, alpha=-lr * scale)


class Rotary(torch.nn.Module):
    def __init__(self, dim, base=10000):
        super().__init__()
        self.inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
        self.seq_len_cached = None
        self.cos_cached = None
        self.sin_cached = None

    def forward(self, x):
        seq_len = x.shape[1]
        if seq_len != self.seq_len_cached:
            self.seq_len_cached = seq_len
            t = torch.arange(seq_len, device=x.device).type_as(self.inv_freq)
            freqs = torch.outer(t, self.inv_freq).to(x.device)
            self.cos_cached = freqs.cos()
            self.sin_cached = freqs.sin()
        return self.cos_cached[None, :, None, :], self.sin_cached[None, :, None, :]


def apply_rotary_emb(x, cos, sin):
    assert x.ndim == 4  # multihead attention
    d = x.shape[3] // 2
    x1 = x[..., :d]
    x2 = x[..., d:]
    y1 = x1 * cos + x2 * sin
    y2 = x1 * (-sin) + x2 * cos
    return torch.cat([y1, y2], 3).type_as(x)


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.n_head = config.n_head
        self.n_embd = config.n_embd
        self.head_dim = self.n_embd // self.n_head
        assert self.n_embd % self.n_head == 0
        self.c_q = nn.Linear(self.n_embd, self.n_embd, bias=False)
        self.c_k = nn.Linear(self.n_embd, self.n_embd, bias=False)
        self.c_v = nn.Linear(self.n_embd, self.n_embd, bias=False)
        self.c_proj = nn.Linear(self.n_embd, self.n_embd, bias=False)
        self.c_proj.weight.data.zero_()
        self.rotary = Rotary(self.head_dim)

    def forward(self, x):
        B, T, C = x.size()
        q = self.c_q(x).view(B, T, self.n_head, self.head_dim)
        k = self.c_k(x).view(B, T, self.n_head, self.head_dim)
        v = self.c_v(x).view(B, T, self.n_head, self.head_dim)
        cos, sin = self.rotary(q)
        q, k = apply_rotary_emb(q, cos, sin), apply_rotary_emb(k, cos, sin)
        q, k = F.rms_norm(q, (q.size(-1),)), F.rms_norm(k, (k.size(-1),))
        y = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        y = y.transpose(1, 2).contiguous().view_as(x)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=False)
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=False)
        self.c_proj.weight.data.zero_()

    def forward(self, x):
        x = self.c_fc(x)
        x = F.relu(x).square()
        return self.c_proj(x)


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attn = CausalSelfAttention(config)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(F.rms_norm(x, (x.size(-1),)))
        x = x + self.mlp(F.rms_norm(x, (x.size(-1),)))
        return x


@dataclass
class GPTConfig:
    vocab_size: int = 64
    n_layer: int = 2
    n_head: int = 2
    n_embd: int = 32


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict(
            dict(
                wte=nn.Embedding(config.vocab_size, config.n_embd),
                h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
            )
        )
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight

    def forward(self, idx, targets=None, return_logits=True):
        x = self.transformer.wte(idx)
        for block in self.transformer.h:
            x = block(x)
        x = F.rms_norm(x, (x.size(-1),))
        if targets is not None:
            logits = self.lm_head(x).float()
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        else:
            logits = self.lm_head(x[:, [-1], :]).float()
            loss = None
        if not return_logits:
            logits = None
        return logits, loss


class DistributedDataLoader:
    """grill-corpus: shards of random tokens in memory, as the .bin shards are read."""

    def __init__(self, n_shards, B, T, process_rank, num_processes, vocab):
        self.process_rank = process_rank
        self.num_processes = num_processes
        self.B = B
        self.T = T
        self.files = [torch.randint(0, vocab, (4 * B * T + 1,)) for _ in range(n_shards)]
        self.ntok_total = sum(len(shard) for shard in self.files)
        self.reset()

    def reset(self):
        self.current_shard = 0
        self.current_position = self.process_rank * self.B * self.T
        self.tokens = self.files[self.current_shard]

    def advance(self):
        self.current_shard = (self.current_shard + 1) % len(self.files)
        self.current_position = self.process_rank * self.B * self.T
        self.tokens = self.files[self.current_shard]

    def next_batch(self):
        B = self.B
        T = self.T
        buf = self.tokens[self.current_position : self.current_position + B * T + 1]
        x = (buf[:-1]).view(B, T)
        y = (buf[1:]).view(B, T)
        self.current_position += B * T * self.num_processes
        if self.current_position + (B * T * self.num_processes + 1) > len(self.tokens):
            self.advance()
        return x, y


@dataclass
class Hyperparameters:
    batch_size: int = 2 * 4
    device_batch_size: int = 4
    sequence_length: int = 16
    num_iterations: int = 40
    learning_rate: float = 0.0036
    warmup_iters: int = 0
    warmdown_iters: int = 12
    weight_decay: float = 0
    val_loss_every: int = 10
    val_tokens: int = 4 * 16 * 4
    save_every: int = 0


args = Hyperparameters()
ddp_rank, ddp_world_size = 0, 1  # grill-corpus: one process
master_process = ddp_rank == 0
B, T = args.device_batch_size, args.sequence_length
assert args.val_tokens % (B * T * ddp_world_size) == 0
val_steps = args.val_tokens // (B * T * ddp_world_size)
assert args.batch_size % (B * ddp_world_size) == 0
train_accumulation_steps = args.batch_size // (B * ddp_world_size)

num_vocab = 64
train_loader = DistributedDataLoader(3, B, T, ddp_rank, ddp_world_size, num_vocab)
val_loader = DistributedDataLoader(1, B, T, ddp_rank, ddp_world_size, num_vocab)
x, y = train_loader.next_batch()
model = GPT(GPTConfig(vocab_size=num_vocab))
if hasattr(config, "coordinate_descent_tuning"):
    config.coordinate_descent_tuning = True  # suggested by @Chillee
raw_model = model

optimizer1 = torch.optim.AdamW(raw_model.lm_head.parameters(), lr=args.learning_rate, betas=(0.9, 0.95), weight_decay=args.weight_decay)
optimizer2 = Muon(raw_model.transformer.h.parameters(), lr=0.1 * args.learning_rate, momentum=0.95)
optimizers = [optimizer1, optimizer2]


def get_lr(it):
    assert it <= args.num_iterations
    if it < args.warmup_iters:
        return (it + 1) / args.warmup_iters
    elif it < args.num_iterations - args.warmdown_iters:
        return 1.0
    else:
        decay_ratio = (args.num_iterations - it) / args.warmdown_iters
        return decay_ratio


schedulers = [torch.optim.lr_scheduler.LambdaLR(opt, get_lr) for opt in optimizers]

if master_process:
    run_id = str(uuid.uuid4())
    logdir = "logs/%s/" % run_id
    os.makedirs(logdir, exist_ok=True)
    logfile = "logs/%s.txt" % run_id
    with open(logfile, "w") as f:
        f.write("=" * 100 + "\n")
        f.write(code)
        f.write("=" * 100 + "\n")

training_time_ms = 0
t0 = time.time()
train_loader.reset()
for step in range(args.num_iterations + 1):
    last_step = step == args.num_iterations
    if last_step or (args.val_loss_every > 0 and step % args.val_loss_every == 0):
        training_time_ms += 1000 * (time.time() - t0)
        model.eval()
        val_loader.reset()
        val_loss = 0.0
        for _ in range(val_steps):
            x_val, y_val = val_loader.next_batch()
            _, loss = model(x_val, y_val, return_logits=False)
            val_loss += loss.detach()
            del loss
        val_loss /= val_steps
        if master_process:
            print(f"step:{step}/{args.num_iterations} val_loss:{val_loss:.4f} train_time:{training_time_ms:.0f}ms")
            with open(logfile, "a") as f:
                f.write(f"step:{step}/{args.num_iterations} val_loss:{val_loss:.4f}\n")
        t0 = time.time()
    if last_step:
        break

    model.train()
    for i in range(1, train_accumulation_steps + 1):
        _, loss = model(x, y, return_logits=False)
        train_loss = loss.detach()
        x, y = train_loader.next_batch()
        loss.backward()
    for p in model.parameters():
        if p.grad is not None:
            p.grad /= train_accumulation_steps
    for opt, sched in zip(optimizers, schedulers):
        opt.step()
        sched.step()
    model.zero_grad(set_to_none=True)
    if master_process:
        approx_time = training_time_ms + 1000 * (time.time() - t0)
        print(f"step:{step + 1}/{args.num_iterations} train_loss:{train_loss.item():.4f} train_time:{approx_time:.0f}ms")
