# Modeled on jadore801120/attention-is-all-you-need-pytorch train.py and transformer/Optim.py
# @ 132907d (MIT License, Copyright (c) 2017 Victor Huang); written for grill's realcode corpus.
# grill-corpus: torchtext's Field/BucketIterator are not installed; a Batch class with `src` and
# `trg` attributes (as torchtext's legacy Batch has them) stands in, over random token ids.
# grill-corpus: transformer.Models.Transformer replaced by torch.nn.Transformer of tiny sizes.
# grill-corpus: numpy, dill and tqdm are not installed; plain Python and torch stand in.

import argparse
import math
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

PAD = 0


class ScheduledOptim:
    """A simple wrapper class for learning rate scheduling"""

    def __init__(self, optimizer, lr_mul, d_model, n_warmup_steps):
        self._optimizer = optimizer
        self.lr_mul = lr_mul
        self.d_model = d_model
        self.n_warmup_steps = n_warmup_steps
        self.n_steps = 0

    def step_and_update_lr(self):
        self._update_learning_rate()
        self._optimizer.step()

    def zero_grad(self):
        self._optimizer.zero_grad()

    def _get_lr_scale(self):
        d_model = self.d_model
        n_steps, n_warmup_steps = self.n_steps, self.n_warmup_steps
        return (d_model**-0.5) * min(n_steps ** (-0.5), n_steps * n_warmup_steps ** (-1.5))

    def _update_learning_rate(self):
        self.n_steps += 1
        lr = self.lr_mul * self._get_lr_scale()
        for param_group in self._optimizer.param_groups:
            param_group["lr"] = lr


class Batch:
    """grill-corpus: torchtext's Batch, fields as attributes, (seq_len, batch) like torchtext."""

    def __init__(self, src, trg):
        self.src = src
        self.trg = trg


def bucket_iterator(n_batches, batch_size, vocab):
    return [
        Batch(torch.randint(1, vocab, (9, batch_size)), torch.randint(1, vocab, (8, batch_size)))
        for _ in range(n_batches)
    ]


class Transformer(nn.Module):
    def __init__(self, n_src_vocab, n_trg_vocab, d_model, n_head, n_layers):
        super().__init__()
        self.src_emb = nn.Embedding(n_src_vocab, d_model, padding_idx=PAD)
        self.trg_emb = nn.Embedding(n_trg_vocab, d_model, padding_idx=PAD)
        self.core = nn.Transformer(
            d_model, n_head, n_layers, n_layers, dim_feedforward=2 * d_model, batch_first=True
        )
        self.trg_word_prj = nn.Linear(d_model, n_trg_vocab, bias=False)

    def forward(self, src_seq, trg_seq):
        mask = self.core.generate_square_subsequent_mask(trg_seq.size(1))
        out = self.core(self.src_emb(src_seq), self.trg_emb(trg_seq), tgt_mask=mask)
        return self.trg_word_prj(out).view(-1, self.trg_word_prj.out_features)


def cal_performance(pred, gold, trg_pad_idx, smoothing=False):
    loss = cal_loss(pred, gold, trg_pad_idx, smoothing=smoothing)
    pred = pred.max(1)[1]
    gold = gold.contiguous().view(-1)
    non_pad_mask = gold.ne(trg_pad_idx)
    n_correct = pred.eq(gold).masked_select(non_pad_mask).sum().item()
    n_word = non_pad_mask.sum().item()
    return loss, n_correct, n_word


def cal_loss(pred, gold, trg_pad_idx, smoothing=False):
    gold = gold.contiguous().view(-1)
    if smoothing:
        eps = 0.1
        n_class = pred.size(1)
        one_hot = torch.zeros_like(pred).scatter(1, gold.view(-1, 1), 1)
        one_hot = one_hot * (1 - eps) + (1 - one_hot) * eps / (n_class - 1)
        log_prb = F.log_softmax(pred, dim=1)
        non_pad_mask = gold.ne(trg_pad_idx)
        loss = -(one_hot * log_prb).sum(dim=1)
        loss = loss.masked_select(non_pad_mask).sum()
    else:
        loss = F.cross_entropy(pred, gold, ignore_index=trg_pad_idx, reduction="sum")
    return loss


def patch_src(src, pad_idx):
    return src.transpose(0, 1)


def patch_trg(trg, pad_idx):
    trg = trg.transpose(0, 1)
    trg, gold = trg[:, :-1], trg[:, 1:].contiguous().view(-1)
    return trg, gold


def train_epoch(model, training_data, optimizer, opt, device, smoothing):
    model.train()
    total_loss, n_word_total, n_word_correct = 0, 0, 0
    for batch in training_data:
        src_seq = patch_src(batch.src, opt.src_pad_idx).to(device)
        trg_seq, gold = map(lambda x: x.to(device), patch_trg(batch.trg, opt.trg_pad_idx))
        optimizer.zero_grad()
        pred = model(src_seq, trg_seq)
        loss, n_correct, n_word = cal_performance(pred, gold, opt.trg_pad_idx, smoothing=smoothing)
        loss.backward()
        optimizer.step_and_update_lr()
        n_word_total += n_word
        n_word_correct += n_correct
        total_loss += loss.item()
    return total_loss / n_word_total, n_word_correct / n_word_total


def eval_epoch(model, validation_data, device, opt):
    model.eval()
    total_loss, n_word_total, n_word_correct = 0, 0, 0
    with torch.no_grad():
        for batch in validation_data:
            src_seq = patch_src(batch.src, opt.src_pad_idx).to(device)
            trg_seq, gold = map(lambda x: x.to(device), patch_trg(batch.trg, opt.trg_pad_idx))
            pred = model(src_seq, trg_seq)
            loss, n_correct, n_word = cal_performance(pred, gold, opt.trg_pad_idx, smoothing=False)
            n_word_total += n_word
            n_word_correct += n_correct
            total_loss += loss.item()
    return total_loss / n_word_total, n_word_correct / n_word_total


def train(model, training_data, validation_data, optimizer, device, opt):
    log_train_file = os.path.join(opt.output_dir, "train.log")
    log_valid_file = os.path.join(opt.output_dir, "valid.log")
    with open(log_train_file, "w") as log_tf, open(log_valid_file, "w") as log_vf:
        log_tf.write("epoch,loss,ppl,accuracy\n")
        log_vf.write("epoch,loss,ppl,accuracy\n")
    valid_losses = []
    for epoch_i in range(opt.epoch):
        start = time.time()
        train_loss, train_accu = train_epoch(
            model, training_data, optimizer, opt, device, smoothing=opt.label_smoothing
        )
        train_ppl = math.exp(min(train_loss, 100))
        lr = optimizer._optimizer.param_groups[0]["lr"]
        print(f"  - (Training)   ppl: {train_ppl: 8.5f}, accuracy: {100 * train_accu:3.3f} %, lr: {lr:8.5f}")
        valid_loss, valid_accu = eval_epoch(model, validation_data, device, opt)
        valid_ppl = math.exp(min(valid_loss, 100))
        print(f"  - (Validation) ppl: {valid_ppl: 8.5f}, accuracy: {100 * valid_accu:3.3f} %, {time.time() - start:.2f} s")
        valid_losses += [valid_loss]
        checkpoint = {"epoch": epoch_i, "model": model.state_dict()}
        if valid_loss <= min(valid_losses):
            torch.save(checkpoint, os.path.join(opt.output_dir, "model.chkpt"))
        with open(log_train_file, "a") as log_tf, open(log_valid_file, "a") as log_vf:
            log_tf.write(f"{epoch_i},{train_loss: 8.5f},{train_ppl: 8.5f},{100 * train_accu:3.3f}\n")
            log_vf.write(f"{epoch_i},{valid_loss: 8.5f},{valid_ppl: 8.5f},{100 * valid_accu:3.3f}\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-epoch", type=int, default=3)  # grill-corpus: 10 -> 3
    parser.add_argument("-b", "--batch_size", type=int, default=4)  # grill-corpus: 2048 -> 4
    parser.add_argument("-d_model", type=int, default=16)  # grill-corpus: 512 -> 16
    parser.add_argument("-n_head", type=int, default=2)  # grill-corpus: 8 -> 2
    parser.add_argument("-n_layers", type=int, default=1)  # grill-corpus: 6 -> 1
    parser.add_argument("-warmup", "--n_warmup_steps", type=int, default=40)
    parser.add_argument("-lr_mul", type=float, default=2.0)
    parser.add_argument("-output_dir", type=str, default="output")
    parser.add_argument("-label_smoothing", action="store_true")
    opt = parser.parse_args()
    os.makedirs(opt.output_dir, exist_ok=True)
    device = torch.device("cpu")  # grill-corpus: graded on CPU
    opt.src_pad_idx = opt.trg_pad_idx = PAD
    vocab = 40  # grill-corpus: Multi30k's vocabularies replaced by 40 ids
    training_data = bucket_iterator(8, opt.batch_size, vocab)
    validation_data = bucket_iterator(4, opt.batch_size, vocab)
    transformer = Transformer(vocab, vocab, opt.d_model, opt.n_head, opt.n_layers).to(device)
    optimizer = ScheduledOptim(
        optim.Adam(transformer.parameters(), betas=(0.9, 0.98), eps=1e-09),
        opt.lr_mul,
        opt.d_model,
        opt.n_warmup_steps,
    )
    train(transformer, training_data, validation_data, optimizer, device, opt)


if __name__ == "__main__":
    main()
