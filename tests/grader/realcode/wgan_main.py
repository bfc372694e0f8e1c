# Modeled on martinarjovsky/WassersteinGAN main.py, models/mlp.py and generate.py @ f7a01e8
# (BSD 3-Clause License, Copyright (c) 2017, Martin Arjovsky, Soumith Chintala, Leon Bottou);
# written for grill's realcode corpus. A WGAN: a critic and a generator, each with its own
# RMSprop optimizer, the critic trained Diters times per generator step with its weights
# clamped; the generator's config written to a JSON file and read back to rebuild it.
from __future__ import print_function
import argparse
import random
import torch
import torch.nn as nn
import torch.optim as optim
import torch.utils.data
from torch.autograd import Variable
import os
import json


class MLP_G(nn.Module):
    def __init__(self, isize, nz, nc, ngf, ngpu):
        super(MLP_G, self).__init__()
        self.ngpu = ngpu
        main = nn.Sequential(
            # z goes into a linear of size ngf
            nn.Linear(nz, ngf),
            nn.ReLU(True),
            nn.Linear(ngf, ngf),
            nn.ReLU(True),
            nn.Linear(ngf, ngf),
            nn.ReLU(True),
            nn.Linear(ngf, nc * isize * isize),
        )
        self.main = main
        self.nc = nc
        self.isize = isize
        self.nz = nz

    def forward(self, input):
        input = input.view(input.size(0), input.size(1))
        output = self.main(input)  # grill-corpus: the ngpu > 1 data_parallel branch dropped
        return output.view(output.size(0), self.nc, self.isize, self.isize)


class MLP_D(nn.Module):
    def __init__(self, isize, nz, nc, ndf, ngpu):
        super(MLP_D, self).__init__()
        self.ngpu = ngpu
        main = nn.Sequential(
            nn.Linear(nc * isize * isize, ndf),
            nn.ReLU(True),
            nn.Linear(ndf, ndf),
            nn.ReLU(True),
            nn.Linear(ndf, ndf),
            nn.ReLU(True),
            nn.Linear(ndf, 1),
        )
        self.main = main
        self.nc = nc
        self.isize = isize
        self.nz = nz

    def forward(self, input):
        input = input.view(input.size(0), input.size(1) * input.size(2) * input.size(3))
        output = self.main(input)  # grill-corpus: the ngpu > 1 data_parallel branch dropped
        output = output.mean(0)
        return output.view(1)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", default="synthetic", help="cifar10 | lsun | folder")  # grill-corpus: required -> a synthetic default
    parser.add_argument("--workers", type=int, help="number of data loading workers", default=0)  # grill-corpus: 2 -> 0
    parser.add_argument("--batchSize", type=int, default=8, help="input batch size")  # grill-corpus: 64 -> 8
    parser.add_argument("--imageSize", type=int, default=8, help="the height / width of the input image")  # grill-corpus: 64 -> 8
    parser.add_argument("--nc", type=int, default=1, help="input image channels")  # grill-corpus: 3 -> 1
    parser.add_argument("--nz", type=int, default=8, help="size of the latent z vector")  # grill-corpus: 100 -> 8
    parser.add_argument("--ngf", type=int, default=16)  # grill-corpus: 64 -> 16
    parser.add_argument("--ndf", type=int, default=16)  # grill-corpus: 64 -> 16
    parser.add_argument("--niter", type=int, default=3, help="number of epochs to train for")  # grill-corpus: 25 -> 3
    parser.add_argument("--lrD", type=float, default=0.00005, help="learning rate for Critic")
    parser.add_argument("--lrG", type=float, default=0.00005, help="learning rate for Generator")
    parser.add_argument("--beta1", type=float, default=0.5, help="beta1 for adam")
    parser.add_argument("--ngpu", type=int, default=1, help="number of GPUs to use")
    parser.add_argument("--clamp_lower", type=float, default=-0.01)
    parser.add_argument("--clamp_upper", type=float, default=0.01)
    parser.add_argument("--Diters", type=int, default=5, help="number of D iters per each G iter")
    parser.add_argument("--experiment", default=None, help="Where to store samples and models")
    parser.add_argument("--adam", action="store_true", help="Whether to use adam (default is rmsprop)")
    opt = parser.parse_args()
    print(opt)

    if opt.experiment is None:
        opt.experiment = "samples"
    os.makedirs(opt.experiment, exist_ok=True)  # grill-corpus: os.system('mkdir ...')

    opt.manualSeed = random.randint(1, 10000)  # fix seed
    print("Random Seed: ", opt.manualSeed)
    random.seed(opt.manualSeed)
    torch.manual_seed(opt.manualSeed)

    # grill-corpus: torchvision datasets replaced by images in [-1, 1] of the same layout
    images = torch.rand(160, opt.nc, opt.imageSize, opt.imageSize) * 2 - 1
    dataset = torch.utils.data.TensorDataset(images, torch.zeros(160, dtype=torch.long))
    dataloader = torch.utils.data.DataLoader(
        dataset, batch_size=opt.batchSize, shuffle=True, num_workers=int(opt.workers)
    )

    ngpu = int(opt.ngpu)
    nz = int(opt.nz)
    ngf = int(opt.ngf)
    ndf = int(opt.ndf)
    nc = int(opt.nc)

    # the generator's config, written beside the checkpoints for generate.py to read
    generator_config = {"imageSize": opt.imageSize, "nz": nz, "nc": nc, "ngf": ngf, "ngpu": ngpu, "mlp_G": True}
    with open(os.path.join(opt.experiment, "generator_config.json"), "w") as gcfg:
        gcfg.write(json.dumps(generator_config) + "\n")

    netG = MLP_G(opt.imageSize, nz, nc, ngf, ngpu)  # grill-corpus: the MLP models (--mlp_G, --mlp_D)
    print(netG)
    netD = MLP_D(opt.imageSize, nz, nc, ndf, ngpu)
    print(netD)

    input = torch.FloatTensor(opt.batchSize, nc, opt.imageSize, opt.imageSize)
    noise = torch.FloatTensor(opt.batchSize, nz, 1, 1)
    fixed_noise = torch.FloatTensor(opt.batchSize, nz, 1, 1).normal_(0, 1)
    one = torch.FloatTensor([1])
    mone = one * -1

    # setup optimizer
    if opt.adam:
        optimizerD = optim.Adam(netD.parameters(), lr=opt.lrD, betas=(opt.beta1, 0.999))
        optimizerG = optim.Adam(netG.parameters(), lr=opt.lrG, betas=(opt.beta1, 0.999))
    else:
        optimizerD = optim.RMSprop(netD.parameters(), lr=opt.lrD)
        optimizerG = optim.RMSprop(netG.parameters(), lr=opt.lrG)

    gen_iterations = 0
    for epoch in range(opt.niter):
        data_iter = iter(dataloader)
        i = 0
        while i < len(dataloader):
            # (1) update the critic
            for p in netD.parameters():  # reset requires_grad
                p.requires_grad = True  # they are set to False below in the netG update

            # train the critic Diters times (many more at the start)
            if gen_iterations < 2 or gen_iterations % 500 == 0:  # grill-corpus: 25 -> 2
                Diters = 10  # grill-corpus: 100 -> 10
            else:
                Diters = opt.Diters
            j = 0
            while j < Diters and i < len(dataloader):
                j += 1

                # clamp parameters to a cube
                for p in netD.parameters():
                    p.data.clamp_(opt.clamp_lower, opt.clamp_upper)

                data = next(data_iter)  # grill-corpus: data_iter.next()
                i += 1

                # train with real
                real_cpu, _ = data
                netD.zero_grad()
                batch_size = real_cpu.size(0)

                input.resize_as_(real_cpu).copy_(real_cpu)
                inputv = Variable(input)

                errD_real = netD(inputv)
                errD_real.backward(one)

                # train with fake
                noise.resize_(opt.batchSize, nz, 1, 1).normal_(0, 1)
                with torch.no_grad():  # grill-corpus: Variable(noise, volatile=True), totally freeze netG
                    fake = netG(noise)
                inputv = fake
                errD_fake = netD(inputv)
                errD_fake.backward(mone)
                errD = errD_real - errD_fake
                optimizerD.step()

            # (2) update the generator
            for p in netD.parameters():
                p.requires_grad = False  # to avoid computation
            netG.zero_grad()
            # a full batch of noise, even after the loader's tail batch
            noise.resize_(opt.batchSize, nz, 1, 1).normal_(0, 1)
            noisev = Variable(noise)
            fake = netG(noisev)
            errG = netD(fake)
            errG.backward(one)
            optimizerG.step()
            gen_iterations += 1

            print(
                "[%d/%d][%d/%d][%d] Loss_D: %f Loss_G: %f Loss_D_real: %f Loss_D_fake %f"
                % (epoch, opt.niter, i, len(dataloader), gen_iterations,
                   errD.item(), errG.item(), errD_real.item(), errD_fake.item())  # grill-corpus: .data[0]
            )

        # do checkpointing
        torch.save(netG.state_dict(), "{0}/netG_epoch_{1}.pth".format(opt.experiment, epoch))
        torch.save(netD.state_dict(), "{0}/netD_epoch_{1}.pth".format(opt.experiment, epoch))

    # generate.py: rebuild the generator from its config file and its last checkpoint
    with open(os.path.join(opt.experiment, "generator_config.json"), "r") as gencfg:
        generator_config = json.loads(gencfg.read())
    netG = MLP_G(generator_config["imageSize"], generator_config["nz"], generator_config["nc"],
                 generator_config["ngf"], generator_config["ngpu"])
    netG.load_state_dict(torch.load("{0}/netG_epoch_{1}.pth".format(opt.experiment, opt.niter - 1)))
    fake = netG(fixed_noise)
    fake.data = fake.data.mul(0.5).add(0.5)
    print(fake.shape)
