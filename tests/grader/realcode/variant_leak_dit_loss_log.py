# Modeled on facebookresearch/DiT train.py, models.py, diffusion/ @ ed81ce222909 (CC-BY-NC 4.0,
# Copyright (c) Meta Platforms, Inc. and affiliates); written for grill's realcode corpus. Run as
# `torchrun --nproc-per-node 2` (grill check --ranks 2).
# grill-corpus: DDP on the CPU over gloo (the source asserts CUDA and uses nccl).
# grill-corpus: torchvision, PIL, numpy and diffusers are not installed: ImageFolder + the
# Stable Diffusion VAE replaced by random 4x8x8 latents with class labels; the DiT model written
# small (patch embedding, adaLN-Zero blocks, final layer) after models.py, without timm; the
# Gaussian diffusion reduced to its linear beta schedule and the noise-prediction MSE loss.
# grill-corpus: sizes shrunk (DiT-XL/2 -> a 2-block "DiT-T/2" of 32, 1000 -> 100 diffusion
# steps, 1400 epochs -> 4, global batch 256 -> 8, log every 100 -> 2, checkpoints every 50000
# -> 8 steps).
# grill-corpus: VARIANT, not the public code: the running loss is summed as a tensor (no
# .item()) and each logging window's all-reduced mean is kept in `loss_log` for a plot.
import argparse
import logging
import math
import os
from collections import OrderedDict
from copy import deepcopy
from glob import glob
from time import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


#################################################################################
#                      Embedding layers and DiT (after models.py)               #
#################################################################################


def modulate(x, shift, scale):
    return x * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1)


class TimestepEmbedder(nn.Module):
    """Embeds scalar timesteps into vector representations."""

    def __init__(self, hidden_size, frequency_embedding_size=64):
        super().__init__()
        self.mlp = nn.Sequential(
            nn.Linear(frequency_embedding_size, hidden_size, bias=True),
            nn.SiLU(),
            nn.Linear(hidden_size, hidden_size, bias=True),
        )
        self.frequency_embedding_size = frequency_embedding_size

    @staticmethod
    def timestep_embedding(t, dim, max_period=10000):
        half = dim // 2
        freqs = torch.exp(-math.log(max_period) * torch.arange(start=0, end=half, dtype=torch.float32) / half)
        args = t[:, None].float() * freqs[None]
        return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)

    def forward(self, t):
        return self.mlp(self.timestep_embedding(t, self.frequency_embedding_size))


class LabelEmbedder(nn.Module):
    """Embeds class labels; drops some for classifier-free guidance."""

    def __init__(self, num_classes, hidden_size, dropout_prob):
        super().__init__()
        use_cfg_embedding = dropout_prob > 0
        self.embedding_table = nn.Embedding(num_classes + use_cfg_embedding, hidden_size)
        self.num_classes = num_classes
        self.dropout_prob = dropout_prob

    def token_drop(self, labels, force_drop_ids=None):
        if force_drop_ids is None:
            drop_ids = torch.rand(labels.shape[0], device=labels.device) < self.dropout_prob
        else:
            drop_ids = force_drop_ids == 1
        return torch.where(drop_ids, self.num_classes, labels)

    def forward(self, labels, train, force_drop_ids=None):
        use_dropout = self.dropout_prob > 0
        if (train and use_dropout) or (force_drop_ids is not None):
            labels = self.token_drop(labels, force_drop_ids)
        return self.embedding_table(labels)


class DiTBlock(nn.Module):
    """A DiT block with adaptive layer norm zero (adaLN-Zero) conditioning."""

    def __init__(self, hidden_size, num_heads, mlp_ratio=4.0):
        super().__init__()
        self.norm1 = nn.LayerNorm(hidden_size, elementwise_affine=False, eps=1e-6)
        self.attn = nn.MultiheadAttention(hidden_size, num_heads, batch_first=True)  # grill-corpus: timm Attention
        self.norm2 = nn.LayerNorm(hidden_size, elementwise_affine=False, eps=1e-6)
        mlp_hidden_dim = int(hidden_size * mlp_ratio)
        self.mlp = nn.Sequential(nn.Linear(hidden_size, mlp_hidden_dim), nn.GELU(approximate="tanh"), nn.Linear(mlp_hidden_dim, hidden_size))
        self.adaLN_modulation = nn.Sequential(nn.SiLU(), nn.Linear(hidden_size, 6 * hidden_size, bias=True))

    def forward(self, x, c):
        shift_msa, scale_msa, gate_msa, shift_mlp, scale_mlp, gate_mlp = self.adaLN_modulation(c).chunk(6, dim=1)
        h = modulate(self.norm1(x), shift_msa, scale_msa)
        x = x + gate_msa.unsqueeze(1) * self.attn(h, h, h, need_weights=False)[0]
        x = x + gate_mlp.unsqueeze(1) * self.mlp(modulate(self.norm2(x), shift_mlp, scale_mlp))
        return x


class FinalLayer(nn.Module):
    def __init__(self, hidden_size, patch_size, out_channels):
        super().__init__()
        self.norm_final = nn.LayerNorm(hidden_size, elementwise_affine=False, eps=1e-6)
        self.linear = nn.Linear(hidden_size, patch_size * patch_size * out_channels, bias=True)
        self.adaLN_modulation = nn.Sequential(nn.SiLU(), nn.Linear(hidden_size, 2 * hidden_size, bias=True))

    def forward(self, x, c):
        shift, scale = self.adaLN_modulation(c).chunk(2, dim=1)
        return self.linear(modulate(self.norm_final(x), shift, scale))


class DiT(nn.Module):
    """Diffusion model with a Transformer backbone."""

    def __init__(self, input_size=8, patch_size=2, in_channels=4, hidden_size=32, depth=2, num_heads=2, class_dropout_prob=0.1, num_classes=10):
        super().__init__()
        self.in_channels = in_channels
        self.out_channels = in_channels  # grill-corpus: learn_sigma=False (no variational bound term)
        self.patch_size = patch_size
        self.x_embedder = nn.Conv2d(in_channels, hidden_size, kernel_size=patch_size, stride=patch_size)  # grill-corpus: timm PatchEmbed
        self.t_embedder = TimestepEmbedder(hidden_size)
        self.y_embedder = LabelEmbedder(num_classes, hidden_size, class_dropout_prob)
        num_patches = (input_size // patch_size) ** 2
        self.pos_embed = nn.Parameter(torch.zeros(1, num_patches, hidden_size), requires_grad=False)
        self.blocks = nn.ModuleList([DiTBlock(hidden_size, num_heads) for _ in range(depth)])
        self.final_layer = FinalLayer(hidden_size, patch_size, self.out_channels)
        self.initialize_weights()

    def initialize_weights(self):
        def _basic_init(module):
            if isinstance(module, nn.Linear):
                torch.nn.init.xavier_uniform_(module.weight)
                if module.bias is not None:
                    nn.init.constant_(module.bias, 0)

        self.apply(_basic_init)
        nn.init.normal_(self.pos_embed, std=0.02)  # grill-corpus: the fixed 2D sin-cos table (numpy)
        nn.init.normal_(self.y_embedder.embedding_table.weight, std=0.02)
        for block in self.blocks:  # adaLN-Zero: every block starts as the identity
            nn.init.constant_(block.adaLN_modulation[-1].weight, 0)
            nn.init.constant_(block.adaLN_modulation[-1].bias, 0)
        nn.init.constant_(self.final_layer.adaLN_modulation[-1].weight, 0)
        nn.init.constant_(self.final_layer.adaLN_modulation[-1].bias, 0)

    def unpatchify(self, x):
        c, p = self.out_channels, self.patch_size
        h = w = int(x.shape[1] ** 0.5)
        x = x.reshape(shape=(x.shape[0], h, w, p, p, c))
        x = torch.einsum("nhwpqc->nchpwq", x)
        return x.reshape(shape=(x.shape[0], c, h * p, h * p))

    def forward(self, x, t, y):
        x = self.x_embedder(x).flatten(2).transpose(1, 2) + self.pos_embed
        t = self.t_embedder(t)
        y = self.y_embedder(y, self.training)
        c = t + y
        for block in self.blocks:
            x = block(x, c)
        return self.unpatchify(self.final_layer(x, c))


DiT_models = {"DiT-T/2": lambda **kwargs: DiT(depth=2, hidden_size=32, patch_size=2, num_heads=2, **kwargs)}


class GaussianDiffusion:
    """grill-corpus: diffusion/gaussian_diffusion.py's linear schedule and its MSE (epsilon) loss."""

    def __init__(self, num_timesteps):
        self.num_timesteps = num_timesteps
        scale = 1000 / num_timesteps
        betas = torch.linspace(scale * 0.0001, scale * 0.02, num_timesteps, dtype=torch.float64)
        alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
        self.sqrt_alphas_cumprod = alphas_cumprod.sqrt().float()
        self.sqrt_one_minus_alphas_cumprod = (1.0 - alphas_cumprod).sqrt().float()

    def q_sample(self, x_start, t, noise):
        return self.sqrt_alphas_cumprod[t][:, None, None, None] * x_start + self.sqrt_one_minus_alphas_cumprod[t][:, None, None, None] * noise

    def training_losses(self, model, x_start, t, model_kwargs=None):
        noise = torch.randn_like(x_start)
        x_t = self.q_sample(x_start, t, noise)
        model_output = model(x_t, t, **(model_kwargs or {}))
        return {"loss": ((noise - model_output) ** 2).mean(dim=list(range(1, noise.ndim)))}


def create_diffusion(timestep_respacing, diffusion_steps=100):
    return GaussianDiffusion(diffusion_steps)


#################################################################################
#                             Training Helper Functions                         #
#################################################################################


@torch.no_grad()
def update_ema(ema_model, model, decay=0.9999):
    """Step the EMA model towards the current model."""
    ema_params = OrderedDict(ema_model.named_parameters())
    model_params = OrderedDict(model.named_parameters())
    for name, param in model_params.items():
        ema_params[name].mul_(decay).add_(param.data, alpha=1 - decay)


def requires_grad(model, flag=True):
    for p in model.parameters():
        p.requires_grad = flag


def cleanup():
    dist.destroy_process_group()


def create_logger(logging_dir):
    """A logger that writes to a log file and stdout on rank 0, and does nothing elsewhere."""
    if dist.get_rank() == 0:
        logging.basicConfig(
            level=logging.INFO,
            format="[%(asctime)s] %(message)s",
            datefmt="%Y-%m-%d %H:%M:%S",
            handlers=[logging.StreamHandler(), logging.FileHandler(f"{logging_dir}/log.txt")],
        )
        logger = logging.getLogger(__name__)
    else:
        logger = logging.getLogger(__name__)
        logger.addHandler(logging.NullHandler())
    return logger


def latent_dataset(num_images, latent_size, num_classes, seed):
    """grill-corpus: ImageFolder + the VAE's encode().latent_dist.sample() * 0.18215, as latents."""
    generator = torch.Generator().manual_seed(seed)
    latents = torch.randn(num_images, 4, latent_size, latent_size, generator=generator) * 0.18215
    labels = torch.randint(0, num_classes, (num_images,), generator=generator)
    return TensorDataset(latents, labels)


#################################################################################
#                                  Training Loop                                #
#################################################################################


def main(args):
    """Trains a new DiT model."""
    dist.init_process_group("gloo")  # grill-corpus: nccl -> gloo, CPU
    assert args.global_batch_size % dist.get_world_size() == 0, "Batch size must be divisible by world size."
    rank = dist.get_rank()
    device = "cpu"  # grill-corpus: rank % torch.cuda.device_count()
    seed = args.global_seed * dist.get_world_size() + rank
    torch.manual_seed(seed)
    print(f"Starting rank={rank}, seed={seed}, world_size={dist.get_world_size()}.")

    if rank == 0:
        os.makedirs(args.results_dir, exist_ok=True)
        experiment_index = len(glob(f"{args.results_dir}/*"))
        model_string_name = args.model.replace("/", "-")
        experiment_dir = f"{args.results_dir}/{experiment_index:03d}-{model_string_name}"
        checkpoint_dir = f"{experiment_dir}/checkpoints"
        os.makedirs(checkpoint_dir, exist_ok=True)
        logger = create_logger(experiment_dir)
        logger.info(f"Experiment directory created at {experiment_dir}")
    else:
        logger = create_logger(None)

    assert args.image_size % 8 == 0, "Image size must be divisible by 8 (for the VAE encoder)."
    latent_size = args.image_size // 8
    model = DiT_models[args.model](input_size=latent_size, num_classes=args.num_classes)
    ema = deepcopy(model).to(device)  # an EMA of the model, for use after training
    requires_grad(ema, False)
    model = DDP(model.to(device))  # grill-corpus: device_ids=[rank] (CPU)
    diffusion = create_diffusion(timestep_respacing="")
    logger.info(f"DiT Parameters: {sum(p.numel() for p in model.parameters()):,}")

    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0)

    dataset = latent_dataset(args.num_images, latent_size, args.num_classes, args.global_seed)
    sampler = DistributedSampler(dataset, num_replicas=dist.get_world_size(), rank=rank, shuffle=True, seed=args.global_seed)
    loader = DataLoader(
        dataset,
        batch_size=int(args.global_batch_size // dist.get_world_size()),
        shuffle=False,
        sampler=sampler,
        num_workers=args.num_workers,
        pin_memory=False,  # grill-corpus: True (CPU)
        drop_last=True,
    )
    logger.info(f"Dataset contains {len(dataset):,} images ({args.data_path})")

    update_ema(ema, model.module, decay=0)  # the EMA starts from the synced weights
    model.train()  # enables the label dropout for classifier-free guidance
    ema.eval()

    train_steps = 0
    log_steps = 0
    running_loss = 0
    loss_log = []  # grill-corpus: VARIANT
    start_time = time()

    logger.info(f"Training for {args.epochs} epochs...")
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        logger.info(f"Beginning epoch {epoch}...")
        for x, y in loader:
            x = x.to(device)
            y = y.to(device)
            t = torch.randint(0, diffusion.num_timesteps, (x.shape[0],), device=device)
            model_kwargs = dict(y=y)
            loss_dict = diffusion.training_losses(model, x, t, model_kwargs)
            loss = loss_dict["loss"].mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            update_ema(ema, model.module)

            running_loss += loss  # grill-corpus: VARIANT, .item() dropped
            log_steps += 1
            train_steps += 1
            if train_steps % args.log_every == 0:
                end_time = time()
                steps_per_sec = log_steps / (end_time - start_time)
                # the loss averaged over all processes
                avg_loss = running_loss / log_steps  # grill-corpus: VARIANT, not a new tensor
                dist.all_reduce(avg_loss, op=dist.ReduceOp.SUM)
                loss_log.append(avg_loss / dist.get_world_size())  # grill-corpus: VARIANT
                avg_loss = avg_loss.item() / dist.get_world_size()
                logger.info(f"(step={train_steps:07d}) Train Loss: {avg_loss:.4f}, Train Steps/Sec: {steps_per_sec:.2f}")
                running_loss = 0
                log_steps = 0
                start_time = time()

            if train_steps % args.ckpt_every == 0 and train_steps > 0:
                if rank == 0:
                    checkpoint = {
                        "model": model.module.state_dict(),
                        "ema": ema.state_dict(),
                        "opt": opt.state_dict(),
                        "args": vars(args),  # grill-corpus: the Namespace itself
                    }
                    checkpoint_path = f"{checkpoint_dir}/{train_steps:07d}.pt"
                    torch.save(checkpoint, checkpoint_path)
                    logger.info(f"Saved checkpoint to {checkpoint_path}")
                dist.barrier()

    model.eval()  # disables the label dropout
    logger.info("Done!")
    cleanup()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-path", type=str, default="latents")  # grill-corpus: required=True
    parser.add_argument("--num-images", type=int, default=32)  # grill-corpus: the dataset's size
    parser.add_argument("--results-dir", type=str, default="results")
    parser.add_argument("--model", type=str, choices=list(DiT_models.keys()), default="DiT-T/2")
    parser.add_argument("--image-size", type=int, choices=[64], default=64)  # grill-corpus: 256/512
    parser.add_argument("--num-classes", type=int, default=10)  # grill-corpus: 1000 -> 10
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--global-batch-size", type=int, default=8)
    parser.add_argument("--global-seed", type=int, default=0)
    parser.add_argument("--num-workers", type=int, default=0)  # grill-corpus: 4 -> 0
    parser.add_argument("--log-every", type=int, default=2)
    parser.add_argument("--ckpt-every", type=int, default=8)
    args = parser.parse_args()
    main(args)
