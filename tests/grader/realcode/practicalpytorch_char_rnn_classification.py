# Modeled on spro/practical-pytorch char-rnn-classification/train.py, model.py and data.py
# @ c520c52 (MIT License, Copyright (c) 2017 Sean Robertson); written for grill's realcode corpus.
# grill-corpus: the names data set is not downloaded; a few names per language are written to
# data/names/*.txt in the run's folder first, then read back as data.py reads them (glob, open).
# grill-corpus: Variable and `loss.data[0]` are from torch 0.3; `torch.zeros` and `loss.item()`
# are what they mean today. LogSoftmax gets its dim. 100000 epochs -> 300.

import glob
import math
import os
import random
import string
import time
import unicodedata

import torch
import torch.nn as nn

NAMES = {
    "English": ["Smith", "Jones", "Taylor", "Brown", "Walker", "Wright"],
    "French": ["Dubois", "Lefevre", "Moreau", "Laurent", "Girard", "Bonnet"],
    "Italian": ["Rossi", "Russo", "Ferrari", "Esposito", "Bianchi", "Romano"],
}
os.makedirs("data/names", exist_ok=True)
for language, names in NAMES.items():
    with open(f"data/names/{language}.txt", "w") as f:
        f.write("\n".join(names))

# data.py
all_letters = string.ascii_letters + " .,;'-"
n_letters = len(all_letters)


def findFiles(path):
    return glob.glob(path)


def unicodeToAscii(s):
    return "".join(c for c in unicodedata.normalize("NFD", s) if unicodedata.category(c) != "Mn" and c in all_letters)


def readLines(filename):
    lines = open(filename).read().strip().split("\n")
    return [unicodeToAscii(line) for line in lines]


category_lines = {}
all_categories = []
for filename in sorted(findFiles("data/names/*.txt")):
    category = filename.split("/")[-1].split(".")[0]
    all_categories.append(category)
    lines = readLines(filename)
    category_lines[category] = lines

n_categories = len(all_categories)


def letterToIndex(letter):
    return all_letters.find(letter)


def lineToTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][letterToIndex(letter)] = 1
    return tensor


# model.py
class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(RNN, self).__init__()
        self.hidden_size = hidden_size
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.i2o = nn.Linear(input_size + hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        combined = torch.cat((input, hidden), 1)
        hidden = self.i2h(combined)
        output = self.i2o(combined)
        output = self.softmax(output)
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


# train.py
n_hidden = 128
n_epochs = 300
print_every = 100
plot_every = 20
learning_rate = 0.005


def categoryFromOutput(output):
    top_n, top_i = output.data.topk(1)
    category_i = top_i[0][0].item()
    return all_categories[category_i], category_i


def randomChoice(l):
    return l[random.randint(0, len(l) - 1)]


def randomTrainingPair():
    category = randomChoice(all_categories)
    line = randomChoice(category_lines[category])
    category_tensor = torch.LongTensor([all_categories.index(category)])
    line_tensor = lineToTensor(line)
    return category, line, category_tensor, line_tensor


rnn = RNN(n_letters, n_hidden, n_categories)
optimizer = torch.optim.SGD(rnn.parameters(), lr=learning_rate)
criterion = nn.NLLLoss()


def train(category_tensor, line_tensor):
    hidden = rnn.initHidden()
    optimizer.zero_grad()
    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)
    loss = criterion(output, category_tensor)
    loss.backward()
    optimizer.step()
    return output, loss.item()


current_loss = 0
all_losses = []


def timeSince(since):
    now = time.time()
    s = now - since
    m = math.floor(s / 60)
    s -= m * 60
    return "%dm %ds" % (m, s)


start = time.time()

for epoch in range(1, n_epochs + 1):
    category, line, category_tensor, line_tensor = randomTrainingPair()
    output, loss = train(category_tensor, line_tensor)
    current_loss += loss

    if epoch % print_every == 0:
        guess, guess_i = categoryFromOutput(output)
        correct = "✓" if guess == category else "✗ (%s)" % category
        print("%d %d%% (%s) %.4f %s / %s %s" % (epoch, epoch / n_epochs * 100, timeSince(start), loss, line, guess, correct))

    if epoch % plot_every == 0:
        all_losses.append(current_loss / plot_every)
        current_loss = 0

torch.save(rnn.state_dict(), "char-rnn-classification.pt")  # grill-corpus: the state dict, not the pickled module
