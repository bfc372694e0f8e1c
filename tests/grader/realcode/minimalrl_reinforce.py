# Modeled on seungeunrho/minimalRL REINFORCE.py @ c8efed8 (MIT License, Copyright (c) 2019 Seungeun Rho);
# written for grill's realcode corpus.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical
import math
import random


class CartPoleEnv:
    """grill-corpus: gym is not installed; gym.make('CartPole-v1') written in plain Python."""

    def __init__(self, max_steps=50):
        self.max_steps = max_steps

    def reset(self):
        self.s = [random.uniform(-0.05, 0.05) for _ in range(4)]
        self.t = 0
        return list(self.s), {}

    def step(self, a):
        x, x_dot, th, th_dot = self.s
        force = 10.0 if a == 1 else -10.0
        cos, sin = math.cos(th), math.sin(th)
        temp = (force + 0.05 * th_dot ** 2 * sin) / 1.1
        th_acc = (9.8 * sin - cos * temp) / (0.5 * (4.0 / 3.0 - 0.1 * cos ** 2 / 1.1))
        x_acc = temp - 0.05 * th_acc * cos / 1.1
        self.s = [x + 0.02 * x_dot, x_dot + 0.02 * x_acc, th + 0.02 * th_dot, th_dot + 0.02 * th_acc]
        self.t += 1
        done = abs(self.s[0]) > 2.4 or abs(self.s[2]) > 0.2095
        return list(self.s), 1.0, done, self.t >= self.max_steps, {}

#Hyperparameters
learning_rate = 0.0002
gamma         = 0.98

class Policy(nn.Module):
    def __init__(self):
        super(Policy, self).__init__()
        self.data = []

        self.fc1 = nn.Linear(4, 128)
        self.fc2 = nn.Linear(128, 2)
        self.optimizer = optim.Adam(self.parameters(), lr=learning_rate)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.softmax(self.fc2(x), dim=0)
        return x

    def put_data(self, item):
        self.data.append(item)

    def train_net(self):
        R = 0
        self.optimizer.zero_grad()
        for r, prob in self.data[::-1]:
            R = r + gamma * R
            loss = -torch.log(prob) * R
            loss.backward()
        self.optimizer.step()
        self.data = []

def main():
    env = CartPoleEnv()
    pi = Policy()
    score = 0.0
    print_interval = 5

    for n_epi in range(20):  # grill-corpus: 10000 -> 20 episodes
        s, _ = env.reset()
        done = False

        while not done: # CartPole-v1 forced to terminates at 500 step.
            prob = pi(torch.tensor(s, dtype=torch.float32))  # grill-corpus: torch.from_numpy(s).float()
            m = Categorical(prob)
            a = m.sample()
            s_prime, r, done, truncated, info = env.step(a.item())
            pi.put_data((r,prob[a]))
            s = s_prime
            score += r
            done = done or truncated

        pi.train_net()

        if n_epi%print_interval==0 and n_epi!=0:
            print("# of episode :{}, avg score : {}".format(n_epi, score/print_interval))
            score = 0.0

if __name__ == '__main__':
    main()
