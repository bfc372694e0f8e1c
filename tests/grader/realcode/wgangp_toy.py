# Modeled on caogang/wgan-gp gan_toy.py @ 081b0f3d4311 and tflib/plot.py @ a31f67d9e8ea (MIT
# License, Copyright (c) 2017 Ishaan Gulrajani); written for grill's realcode corpus. WGAN-GP on the
# 8-gaussians toy set: a critic trained CRITIC_ITERS times per generator step with its own Adam,
# `backward(mone)`/`backward(one)` signs, a gradient penalty through autograd.grad(create_graph=
# True), critic parameters frozen by requires_grad while the generator trains, and tflib's plot
# log (values kept since the last flush and since the beginning, pickled at each flush).
import collections
import os
import pickle
import random
import sys
import types

sys.path.append(os.getcwd())

import torch
import torch.autograd as autograd
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(1)

MODE = "wgan-gp"  # wgan or wgan-gp
DATASET = "8gaussians"  # 8gaussians, 25gaussians, swissroll
DIM = 16  # grill-corpus: 512 -> 16
FIXED_GENERATOR = False  # hold the generator fixed at real data plus Gaussian noise
LAMBDA = 0.1  # smaller lambda seems to help for toy tasks specifically
CRITIC_ITERS = 3  # grill-corpus: 5 -> 3 critic iterations per generator iteration
BATCH_SIZE = 32  # grill-corpus: 256 -> 32
ITERS = 16  # grill-corpus: 100000 -> 16
FLUSH_EVERY = 4  # grill-corpus: the log is flushed every 100 iterations; 4 here
use_cuda = False  # grill-corpus: True -> False, graded on CPU

# ---- tflib/plot.py (grill-corpus: matplotlib is not installed; the plots are dropped) ----
_since_beginning = collections.defaultdict(lambda: {})
_since_last_flush = collections.defaultdict(lambda: {})
_iter = [0]


def tick():
    _iter[0] += 1


def plot(name, value):
    _since_last_flush[name][_iter[0]] = value


def flush():
    prints = []
    for name, vals in _since_last_flush.items():
        prints.append("{}\t{}".format(name, sum(vals.values()) / len(vals)))  # grill-corpus: np.mean
        _since_beginning[name].update(vals)
    print("iter {}\t{}".format(_iter[0], "\t".join(prints)))
    _since_last_flush.clear()
    with open("log.pkl", "wb") as f:
        pickle.dump(dict(_since_beginning), f, pickle.HIGHEST_PROTOCOL)


lib = types.SimpleNamespace(plot=types.SimpleNamespace(tick=tick, plot=plot, flush=flush))


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()
        main = nn.Sequential(
            nn.Linear(2, DIM),
            nn.ReLU(True),
            nn.Linear(DIM, DIM),
            nn.ReLU(True),
            nn.Linear(DIM, DIM),
            nn.ReLU(True),
            nn.Linear(DIM, 2),
        )
        self.main = main

    def forward(self, noise, real_data):
        if FIXED_GENERATOR:
            return noise + real_data
        else:
            output = self.main(noise)
            return output


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        main = nn.Sequential(
            nn.Linear(2, DIM),
            nn.ReLU(True),
            nn.Linear(DIM, DIM),
            nn.ReLU(True),
            nn.Linear(DIM, DIM),
            nn.ReLU(True),
            nn.Linear(DIM, 1),
        )
        self.main = main

    def forward(self, inputs):
        output = self.main(inputs)
        return output.view(-1)


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Linear") != -1:
        m.weight.data.normal_(0.0, 0.02)
        m.bias.data.fill_(0)
    elif classname.find("BatchNorm") != -1:
        m.weight.data.normal_(1.0, 0.02)
        m.bias.data.fill_(0)


def inf_train_gen():
    # grill-corpus: numpy is not installed; the points are made with torch (25gaussians and
    # swissroll, which need numpy and sklearn, are left out)
    if DATASET == "8gaussians":
        scale = 2.0
        centers = [
            (1, 0),
            (-1, 0),
            (0, 1),
            (0, -1),
            (1.0 / 2**0.5, 1.0 / 2**0.5),
            (1.0 / 2**0.5, -1.0 / 2**0.5),
            (-1.0 / 2**0.5, 1.0 / 2**0.5),
            (-1.0 / 2**0.5, -1.0 / 2**0.5),
        ]
        centers = [(scale * x, scale * y) for x, y in centers]
        while True:
            dataset = []
            for i in range(BATCH_SIZE):
                point = torch.randn(2) * 0.02
                center = random.choice(centers)
                point[0] += center[0]
                point[1] += center[1]
                dataset.append(point)
            dataset = torch.stack(dataset)
            dataset /= 1.414  # stdev
            yield dataset


def calc_gradient_penalty(netD, real_data, fake_data):
    alpha = torch.rand(BATCH_SIZE, 1)
    alpha = alpha.expand(real_data.size())
    alpha = alpha.cuda() if use_cuda else alpha

    interpolates = alpha * real_data + ((1 - alpha) * fake_data)
    if use_cuda:
        interpolates = interpolates.cuda()
    interpolates = autograd.Variable(interpolates, requires_grad=True)

    disc_interpolates = netD(interpolates)

    gradients = autograd.grad(
        outputs=disc_interpolates,
        inputs=interpolates,
        grad_outputs=torch.ones(disc_interpolates.size()).cuda() if use_cuda else torch.ones(disc_interpolates.size()),
        create_graph=True,
        retain_graph=True,
        only_inputs=True,
    )[0]

    gradient_penalty = ((gradients.norm(2, dim=1) - 1) ** 2).mean() * LAMBDA
    return gradient_penalty


netG = Generator()
netD = Discriminator()
netD.apply(weights_init)
netG.apply(weights_init)
print(netG)
print(netD)

optimizerD = optim.Adam(netD.parameters(), lr=1e-4, betas=(0.5, 0.9))
optimizerG = optim.Adam(netG.parameters(), lr=1e-4, betas=(0.5, 0.9))

one = torch.tensor(1.0)  # grill-corpus: torch.FloatTensor([1]); today's backward() wants the 0-dim shape
mone = one * -1

data = inf_train_gen()

for iteration in range(ITERS):
    ############################
    # (1) Update D network
    ############################
    for p in netD.parameters():  # reset requires_grad
        p.requires_grad = True  # they are set to False below in netG update

    for iter_d in range(CRITIC_ITERS):
        _data = next(data)  # grill-corpus: data.next() (Python 2) -> next(data)
        real_data = torch.Tensor(_data)
        real_data_v = autograd.Variable(real_data)

        netD.zero_grad()

        # train with real
        D_real = netD(real_data_v)
        D_real = D_real.mean()
        D_real.backward(mone)

        # train with fake
        noise = torch.randn(BATCH_SIZE, 2)
        with torch.no_grad():  # grill-corpus: Variable(noise, volatile=True), totally freeze netG
            noisev = autograd.Variable(noise)
            fake = autograd.Variable(netG(noisev, real_data_v).data)
        inputv = fake
        D_fake = netD(inputv)
        D_fake = D_fake.mean()
        D_fake.backward(one)

        # train with gradient penalty
        gradient_penalty = calc_gradient_penalty(netD, real_data_v.data, fake.data)
        gradient_penalty.backward()

        D_cost = D_fake - D_real + gradient_penalty
        Wasserstein_D = D_real - D_fake
        optimizerD.step()

    if not FIXED_GENERATOR:
        ############################
        # (2) Update G network
        ############################
        for p in netD.parameters():
            p.requires_grad = False  # to avoid computation
        netG.zero_grad()

        _data = next(data)
        real_data = torch.Tensor(_data)
        real_data_v = autograd.Variable(real_data)

        noise = torch.randn(BATCH_SIZE, 2)
        noisev = autograd.Variable(noise)
        fake = netG(noisev, real_data_v)
        G = netD(fake)
        G = G.mean()
        G.backward(mone)
        G_cost = -G
        optimizerG.step()

    # Write logs and save samples (grill-corpus: .cpu().data.numpy() -> .item(), numpy is not installed)
    lib.plot.plot("tmp/" + DATASET + "/" + "disc cost", D_cost.cpu().data.item())
    lib.plot.plot("tmp/" + DATASET + "/" + "wasserstein distance", Wasserstein_D.cpu().data.item())
    if not FIXED_GENERATOR:
        lib.plot.plot("tmp/" + DATASET + "/" + "gen cost", G_cost.cpu().data.item())
    if iteration % FLUSH_EVERY == FLUSH_EVERY - 1:
        lib.plot.flush()  # grill-corpus: generate_image(_data) (matplotlib) dropped
    lib.plot.tick()
