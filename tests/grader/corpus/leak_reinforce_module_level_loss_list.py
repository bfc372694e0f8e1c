# The same REINFORCE loop keeping each episode's loss in a plain module-level list: the list is the holder, the
# episode buffer is not (issue 23).
import torch
import torch.nn as nn

STEPS = 30

net = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
saved_log_probs, rewards = [], []
episode_losses = []
for episode in range(STEPS):
    state = torch.randn(4)
    for t in range(12):
        dist = torch.distributions.Categorical(logits=net(state))
        action = dist.sample()
        saved_log_probs.append(dist.log_prob(action))
        rewards.append(float(action.item() == 1))
        state = torch.randn(4)
    returns = torch.tensor(rewards).flip(0).cumsum(0).flip(0)
    loss = -(torch.stack(saved_log_probs) * (returns - returns.mean())).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    episode_losses.append(loss)
    saved_log_probs.clear()
    rewards.clear()
print(len(episode_losses))
