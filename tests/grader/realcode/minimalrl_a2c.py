# Modeled on seungeunrho/minimalRL a2c.py @ c8efed8 (MIT License, Copyright (c) 2019 Seungeun Rho);
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

# Hyperparameters
n_train_processes = 3
learning_rate = 0.0002
update_interval = 5
gamma = 0.98
max_train_steps = 60  # grill-corpus: 60000 -> 60
PRINT_INTERVAL = update_interval * 4

class ActorCritic(nn.Module):
    def __init__(self):
        super(ActorCritic, self).__init__()
        self.fc1 = nn.Linear(4, 256)
        self.fc_pi = nn.Linear(256, 2)
        self.fc_v = nn.Linear(256, 1)

    def pi(self, x, softmax_dim=1):
        x = F.relu(self.fc1(x))
        x = self.fc_pi(x)
        prob = F.softmax(x, dim=softmax_dim)
        return prob

    def v(self, x):
        x = F.relu(self.fc1(x))
        v = self.fc_v(x)
        return v

class ParallelEnv:
    """grill-corpus: the original runs one worker process per env over multiprocessing.Pipe;
    here the envs step one after the other in this process, with the same interface."""
    def __init__(self, n_train_processes):
        self.nenvs = n_train_processes
        self.envs = [CartPoleEnv() for _ in range(n_train_processes)]

    def step(self, actions):
        obs, rews, dones = [], [], []
        for env, action in zip(self.envs, actions):
            ob, reward, done, truncated, info = env.step(int(action))
            if done or truncated:
                ob, _ = env.reset()
            obs.append(ob); rews.append(reward); dones.append(done or truncated)
        return torch.tensor(obs, dtype=torch.float), torch.tensor(rews), torch.tensor(dones)

    def reset(self):
        return torch.tensor([env.reset()[0] for env in self.envs], dtype=torch.float)

    def close(self):
        self.closed = True

def test(step_idx, model):
    env = CartPoleEnv()
    score = 0.0
    done = False
    num_test = 3  # grill-corpus: 10 -> 3

    for _ in range(num_test):
        s, _ = env.reset()
        while not done:
            prob = model.pi(torch.tensor(s, dtype=torch.float), softmax_dim=0)  # grill-corpus: torch.from_numpy(s)
            a = Categorical(prob).sample()
            s_prime, r, done, truncated, info = env.step(a.item())
            s = s_prime
            score += r
            done = done or truncated
        done = False
    print(f"Step # :{step_idx}, avg score : {score/num_test:.1f}")

def compute_target(v_final, r_lst, mask_lst):
    G = v_final.reshape(-1)
    td_target = list()

    for r, mask in zip(r_lst[::-1], mask_lst[::-1]):
        G = r + gamma * G * mask
        td_target.append(G)

    return torch.stack(td_target[::-1]).float()  # grill-corpus: torch.tensor(np.array(...)) of a list of tensors

if __name__ == '__main__':
    envs = ParallelEnv(n_train_processes)

    model = ActorCritic()
    optimizer = optim.Adam(model.parameters(), lr=learning_rate)

    step_idx = 0
    s = envs.reset()
    while step_idx < max_train_steps:
        s_lst, a_lst, r_lst, mask_lst = list(), list(), list(), list()
        for _ in range(update_interval):
            prob = model.pi(s)
            a = Categorical(prob).sample()
            s_prime, r, done = envs.step(a.tolist())

            s_lst.append(s)
            a_lst.append(a)
            r_lst.append(r/100.0)
            mask_lst.append(1 - done.float())

            s = s_prime
            step_idx += 1

        s_final = s_prime.clone()
        v_final = model.v(s_final).detach()
        td_target = compute_target(v_final, r_lst, mask_lst)

        td_target_vec = td_target.reshape(-1)
        s_vec = torch.stack(s_lst).reshape(-1, 4)  # 4 == Dimension of state
        a_vec = torch.stack(a_lst).reshape(-1).unsqueeze(1)
        advantage = td_target_vec - model.v(s_vec).reshape(-1)

        pi = model.pi(s_vec, softmax_dim=1)
        pi_a = pi.gather(1, a_vec).reshape(-1)
        loss = -(torch.log(pi_a) * advantage.detach()).mean() +\
            F.smooth_l1_loss(model.v(s_vec).reshape(-1), td_target_vec)

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        if step_idx % PRINT_INTERVAL == 0:
            test(step_idx, model)

    envs.close()
