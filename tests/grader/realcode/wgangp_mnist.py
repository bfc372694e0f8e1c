# Modeled on caogang/wgan-gp gan_mnist.py @ 02ec5e25d1bb and tflib/plot.py @ a31f67d9e8ea (MIT
# License, Copyright (c) 2017 Ishaan Gulrajani); written for grill's realcode corpus. WGAN-GP on MNIST
# with convolutional networks: the critic trained CRITIC_ITERS times per generator step, the
# gradient penalty through autograd.grad(create_graph=True), the critic frozen through
# requires_grad while the generator trains (so the dev pass that follows builds no graph), and
# tflib's plot log flushed on a schedule.
import collections
import os
import pickle
import sys
import time
import types

sys.path.append(os.getcwd())

import torch
import torch.autograd as autograd
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(1)
use_cuda = False  # grill-corpus: torch.cuda.is_available(); graded on CPU

DIM = 8  # Model dimensionality (grill-corpus: 64 -> 8)
BATCH_SIZE = 16  # Batch size (grill-corpus: 50 -> 16)
CRITIC_ITERS = 3  # For WGAN and WGAN-GP, number of critic iters per gen iter (grill-corpus: 5 -> 3)
LAMBDA = 10  # Gradient penalty lambda hyperparameter
ITERS = 20  # How many generator iterations to train for (grill-corpus: 200000 -> 20)
OUTPUT_DIM = 784  # Number of pixels in MNIST (28*28)
EVERY = 4  # grill-corpus: the dev pass and the log flush run every 100 iterations; 4 here

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




def print_model_settings(locals_):
    print("Uppercase local vars:")
    for var_name, var_value in sorted(locals_.items()):
        if var_name.isupper() and var_name != "T":
            print("\t{}: {}".format(var_name, var_value))


lib = types.SimpleNamespace(
    plot=types.SimpleNamespace(tick=tick, plot=plot, flush=flush), print_model_settings=print_model_settings
)

lib.print_model_settings(locals().copy())


# ==================Definition Start======================
class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()

        preprocess = nn.Sequential(
            nn.Linear(128, 4 * 4 * 4 * DIM),
            nn.ReLU(True),
        )
        block1 = nn.Sequential(
            nn.ConvTranspose2d(4 * DIM, 2 * DIM, 5),
            nn.ReLU(True),
        )
        block2 = nn.Sequential(
            nn.ConvTranspose2d(2 * DIM, DIM, 5),
            nn.ReLU(True),
        )
        deconv_out = nn.ConvTranspose2d(DIM, 1, 8, stride=2)

        self.block1 = block1
        self.block2 = block2
        self.deconv_out = deconv_out
        self.preprocess = preprocess
        self.sigmoid = nn.Sigmoid()

    def forward(self, input):
        output = self.preprocess(input)
        output = output.view(-1, 4 * DIM, 4, 4)
        output = self.block1(output)
        output = output[:, :, :7, :7]
        output = self.block2(output)
        output = self.deconv_out(output)
        output = self.sigmoid(output)
        return output.view(-1, OUTPUT_DIM)


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()

        main = nn.Sequential(
            nn.Conv2d(1, DIM, 5, stride=2, padding=2),
            nn.ReLU(True),
            nn.Conv2d(DIM, 2 * DIM, 5, stride=2, padding=2),
            nn.ReLU(True),
            nn.Conv2d(2 * DIM, 4 * DIM, 5, stride=2, padding=2),
            nn.ReLU(True),
        )
        self.main = main
        self.output = nn.Linear(4 * 4 * 4 * DIM, 1)

    def forward(self, input):
        input = input.view(-1, 1, 28, 28)
        out = self.main(input)
        out = out.view(-1, 4 * 4 * 4 * DIM)
        out = self.output(out)
        return out.view(-1)


# Dataset iterator (grill-corpus: tflib.mnist.load downloads mnist.pkl.gz; random images in [0, 1]
# of the same flat layout stand in, a few batches each for train and dev)
def mnist_load(batch_size, test_batch_size):
    train = torch.rand(8 * batch_size, OUTPUT_DIM)
    dev = torch.rand(2 * test_batch_size, OUTPUT_DIM)

    def generator(images, size):
        def get_epoch():
            order = torch.randperm(len(images))
            for i in range(len(images) // size):
                yield images[order[i * size : (i + 1) * size]], None

        return get_epoch

    return generator(train, batch_size), generator(dev, test_batch_size), None


train_gen, dev_gen, test_gen = mnist_load(BATCH_SIZE, BATCH_SIZE)


def inf_train_gen():
    while True:
        for images, targets in train_gen():
            yield images


def calc_gradient_penalty(netD, real_data, fake_data):
    alpha = torch.rand(BATCH_SIZE, 1)
    alpha = alpha.expand(real_data.size())

    interpolates = alpha * real_data + ((1 - alpha) * fake_data)
    interpolates = autograd.Variable(interpolates, requires_grad=True)

    disc_interpolates = netD(interpolates)

    gradients = autograd.grad(
        outputs=disc_interpolates,
        inputs=interpolates,
        grad_outputs=torch.ones(disc_interpolates.size()),
        create_graph=True,
        retain_graph=True,
        only_inputs=True,
    )[0]

    gradient_penalty = ((gradients.norm(2, dim=1) - 1) ** 2).mean() * LAMBDA
    return gradient_penalty


# ==================Definition End======================

netG = Generator()
netD = Discriminator()
print(netG)
print(netD)

optimizerD = optim.Adam(netD.parameters(), lr=1e-4, betas=(0.5, 0.9))
optimizerG = optim.Adam(netG.parameters(), lr=1e-4, betas=(0.5, 0.9))

one = torch.tensor(1.0)  # grill-corpus: torch.FloatTensor([1]); today's backward() wants the 0-dim shape
mone = one * -1

data = inf_train_gen()

for iteration in range(ITERS):
    start_time = time.time()
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
        noise = torch.randn(BATCH_SIZE, 128)
        with torch.no_grad():  # grill-corpus: Variable(noise, volatile=True), totally freeze netG
            noisev = autograd.Variable(noise)
            fake = autograd.Variable(netG(noisev).data)
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

    ############################
    # (2) Update G network
    ############################
    for p in netD.parameters():
        p.requires_grad = False  # to avoid computation
    netG.zero_grad()

    noise = torch.randn(BATCH_SIZE, 128)
    noisev = autograd.Variable(noise)
    fake = netG(noisev)
    G = netD(fake)
    G = G.mean()
    G.backward(mone)
    G_cost = -G
    optimizerG.step()

    # Write logs and save samples (grill-corpus: .cpu().data.numpy() -> .item(), numpy is not installed)
    lib.plot.plot("tmp/mnist/time", time.time() - start_time)
    lib.plot.plot("tmp/mnist/train disc cost", D_cost.cpu().data.item())
    lib.plot.plot("tmp/mnist/train gen cost", G_cost.cpu().data.item())
    lib.plot.plot("tmp/mnist/wasserstein distance", Wasserstein_D.cpu().data.item())

    # Calculate dev loss and generate samples every EVERY iters
    if iteration % EVERY == EVERY - 1:
        dev_disc_costs = []
        for images, _ in dev_gen():
            imgs = torch.Tensor(images)
            imgs_v = autograd.Variable(imgs)  # grill-corpus: volatile=True, a no-op today

            D = netD(imgs_v)
            _dev_disc_cost = -D.mean().cpu().data.item()
            dev_disc_costs.append(_dev_disc_cost)
        lib.plot.plot("tmp/mnist/dev disc cost", sum(dev_disc_costs) / len(dev_disc_costs))
        # grill-corpus: generate_image(iteration, netG) (save_images, PIL) dropped

    # Write logs every EVERY iters
    if (iteration < 5) or (iteration % EVERY == EVERY - 1):
        lib.plot.flush()

    lib.plot.tick()
