# Modeled on pytorch/examples time_sequence_prediction/{train,generate_sine_wave}.py @ 77f55b9
# (BSD-3-Clause); written for grill's realcode corpus.
from __future__ import print_function
import argparse
import math
import torch
import torch.nn as nn
import torch.optim as optim
# grill-corpus: numpy and matplotlib are not installed; the plotting is dropped

HIDDEN = 16  # grill-corpus: 51 -> 16


class Sequence(nn.Module):
    def __init__(self):
        super(Sequence, self).__init__()
        self.lstm1 = nn.LSTMCell(1, HIDDEN)
        self.lstm2 = nn.LSTMCell(HIDDEN, HIDDEN)
        self.linear = nn.Linear(HIDDEN, 1)

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
        c_t = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)

        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for i in range(future):  # if we should predict the future
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = torch.cat(outputs, dim=1)
        return outputs


def generate_sine_wave(T=20, L=24, N=8):
    # grill-corpus: generate_sine_wave.py's data made in memory, not saved to traindata.pt
    x = torch.arange(L).repeat(N, 1) + torch.randint(-4 * T, 4 * T, (N, 1))
    return torch.sin(x / 1.0 / T).double()


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('--steps', type=int, default=3, help="steps to run")  # grill-corpus: 15 -> 3
    opt = parser.parse_args()
    torch.manual_seed(0)
    data = generate_sine_wave()
    input = data[3:, :-1]
    target = data[3:, 1:]
    test_input = data[:3, :-1]
    test_target = data[:3, 1:]
    seq = Sequence()
    seq.double()
    criterion = nn.MSELoss()
    # use LBFGS as optimizer since we can load the whole data to train
    optimizer = optim.LBFGS(seq.parameters(), lr=0.8, max_iter=4)  # grill-corpus: max_iter 20 -> 4
    for i in range(opt.steps):
        print('STEP: ', i)

        def closure():
            optimizer.zero_grad()
            out = seq(input)
            loss = criterion(out, target)
            print('loss:', loss.item())
            loss.backward()
            return loss
        optimizer.step(closure)
        # begin to predict, no need to track gradient here
        with torch.no_grad():
            future = 10
            pred = seq(test_input, future=future)
            loss = criterion(pred[:, :-future], test_target)
            print('test loss:', loss.item())
            y = pred.detach().tolist()
        print('predicted tail:', ['%.3f' % v for v in y[0][-3:]], 'rmse %.4f' % math.sqrt(loss.item()))
