# Modeled on bentrevett/pytorch-sentiment-analysis legacy/2 - Upgraded Sentiment Analysis.ipynb
# (its code cells) @ 18d56faf7a32 (MIT License, Ben Trevett); written for
# grill's realcode corpus. A bidirectional two-layer LSTM over packed padded sequences: torchtext
# Batch objects whose `text` attribute is a (tensor, lengths) pair (include_lengths=True),
# batches sorted within by length, pretrained vectors copied into the embedding, train() and
# evaluate() (under torch.no_grad()) per epoch, the best model saved by validation loss.
import random
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

SEED = 1234

random.seed(SEED)
torch.manual_seed(SEED)
torch.backends.cudnn.deterministic = True

# ---- torchtext.legacy (grill-corpus: torchtext and spacy are not installed; Field, LabelField,
# BucketIterator and Batch in a few lines; IMDB replaced by short generated reviews) ----


class Vocab:
    def __init__(self, itos, vectors=None):
        self.itos, self.stoi, self.vectors = itos, {s: i for i, s in enumerate(itos)}, vectors

    def __len__(self):
        return len(self.itos)


class Field:
    unk_token, pad_token = "<unk>", "<pad>"

    def __init__(self, tokenize=str.split, batch_first=False, include_lengths=False):
        self.tokenize, self.batch_first, self.include_lengths = tokenize, batch_first, include_lengths

    def build_vocab(self, data, max_size=None, vectors=None, unk_init=None):
        counts = {}
        for example in data.examples:
            for token in example.text:
                counts[token] = counts.get(token, 0) + 1
        words = sorted(counts, key=lambda w: -counts[w])[:max_size]
        itos = [self.unk_token, self.pad_token] + words
        # grill-corpus: GloVe vectors ("glove.6B.100d") are not downloaded; unk_init-style random ones
        self.vocab = Vocab(itos, unk_init(torch.empty(len(itos), vectors)) if vectors else None)

    def process(self, rows):
        width = max(len(row) for row in rows)
        pad = self.vocab.stoi[self.pad_token]
        ids = torch.tensor([[self.vocab.stoi.get(t, 0) for t in row] + [pad] * (width - len(row)) for row in rows])
        ids = ids if self.batch_first else ids.t()
        return (ids, torch.tensor([len(row) for row in rows])) if self.include_lengths else ids


class LabelField:
    def __init__(self, dtype=torch.long):
        self.dtype = dtype

    def build_vocab(self, data):
        self.vocab = Vocab(sorted({example.label for example in data.examples}))

    def process(self, labels):
        return torch.tensor([self.vocab.stoi[label] for label in labels], dtype=self.dtype)


class Example:
    def __init__(self, text, label):
        self.text, self.label = text, label


class Dataset:
    def __init__(self, examples):
        self.examples = examples

    def __len__(self):
        return len(self.examples)

    def split(self, random_state=None):
        cut = int(0.7 * len(self.examples))
        return Dataset(self.examples[:cut]), Dataset(self.examples[cut:])


class Batch:
    def __init__(self, examples, dataset):
        self.batch_size = len(examples)
        self.dataset = dataset
        self.text = TEXT.process([e.text for e in examples])
        self.label = LABEL.process([e.label for e in examples])


class BucketIterator:
    def __init__(self, dataset, batch_size, device=None, sort_within_batch=False):
        self.dataset, self.batch_size, self.sort_within_batch = dataset, batch_size, sort_within_batch

    def __len__(self):
        return (len(self.dataset) + self.batch_size - 1) // self.batch_size

    def __iter__(self):
        examples = sorted(self.dataset.examples, key=lambda e: len(e.text))  # buckets of similar length
        batches = [examples[i : i + self.batch_size] for i in range(0, len(examples), self.batch_size)]
        random.shuffle(batches)
        for chunk in batches:
            if self.sort_within_batch:
                chunk = sorted(chunk, key=lambda e: -len(e.text))
            yield Batch(chunk, self.dataset)

    @classmethod
    def splits(cls, datasets, batch_size, device, sort_within_batch=False):
        return tuple(cls(d, batch_size, device, sort_within_batch) for d in datasets)


def imdb_splits(text_field, label_field):
    good = "a moving story with fine acting and a score that stays with you".split()
    bad = "a dull plot with flat acting and jokes that never land at all".split()
    examples = []
    for i in range(240):
        words = good if i % 2 else bad
        length = random.randint(6, len(words))
        examples.append(Example(text_field.tokenize(" ".join(random.sample(words, length))), "pos" if i % 2 else "neg"))
    return Dataset(examples[:160]), Dataset(examples[160:])


TEXT = Field(tokenize=str.split, include_lengths=True)  # grill-corpus: tokenize='spacy'
LABEL = LabelField(dtype=torch.float)

train_data, test_data = imdb_splits(TEXT, LABEL)
train_data, valid_data = train_data.split(random_state=random.seed(SEED))

MAX_VOCAB_SIZE = 25_000

TEXT.build_vocab(train_data, max_size=MAX_VOCAB_SIZE, vectors=32, unk_init=torch.Tensor.normal_)
LABEL.build_vocab(train_data)

BATCH_SIZE = 16  # grill-corpus: 64 -> 16

device = torch.device("cpu")  # grill-corpus: cuda if available -> cpu

train_iterator, valid_iterator, test_iterator = BucketIterator.splits(
    (train_data, valid_data, test_data), batch_size=BATCH_SIZE, sort_within_batch=True, device=device
)


class RNN(nn.Module):
    def __init__(self, vocab_size, embedding_dim, hidden_dim, output_dim, n_layers, bidirectional, dropout, pad_idx):
        super().__init__()

        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=pad_idx)

        self.rnn = nn.LSTM(embedding_dim, hidden_dim, num_layers=n_layers, bidirectional=bidirectional, dropout=dropout)

        self.fc = nn.Linear(hidden_dim * 2, output_dim)

        self.dropout = nn.Dropout(dropout)

    def forward(self, text, text_lengths):
        # text = [sent len, batch size]
        embedded = self.dropout(self.embedding(text))

        # pack sequence; lengths need to be on CPU
        packed_embedded = nn.utils.rnn.pack_padded_sequence(embedded, text_lengths.to("cpu"))

        packed_output, (hidden, cell) = self.rnn(packed_embedded)

        # unpack sequence
        output, output_lengths = nn.utils.rnn.pad_packed_sequence(packed_output)

        # concat the final forward (hidden[-2,:,:]) and backward (hidden[-1,:,:]) hidden layers
        hidden = self.dropout(torch.cat((hidden[-2, :, :], hidden[-1, :, :]), dim=1))

        return self.fc(hidden)


INPUT_DIM = len(TEXT.vocab)
EMBEDDING_DIM = 32  # grill-corpus: 100 -> 32
HIDDEN_DIM = 16  # grill-corpus: 256 -> 16
OUTPUT_DIM = 1
N_LAYERS = 2
BIDIRECTIONAL = True
DROPOUT = 0.5
PAD_IDX = TEXT.vocab.stoi[TEXT.pad_token]

model = RNN(INPUT_DIM, EMBEDDING_DIM, HIDDEN_DIM, OUTPUT_DIM, N_LAYERS, BIDIRECTIONAL, DROPOUT, PAD_IDX)


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


print(f"The model has {count_parameters(model):,} trainable parameters")

pretrained_embeddings = TEXT.vocab.vectors

model.embedding.weight.data.copy_(pretrained_embeddings)

UNK_IDX = TEXT.vocab.stoi[TEXT.unk_token]

model.embedding.weight.data[UNK_IDX] = torch.zeros(EMBEDDING_DIM)
model.embedding.weight.data[PAD_IDX] = torch.zeros(EMBEDDING_DIM)

optimizer = optim.Adam(model.parameters())

criterion = nn.BCEWithLogitsLoss()

model = model.to(device)
criterion = criterion.to(device)


def binary_accuracy(preds, y):
    """
    Returns accuracy per batch, i.e. if you get 8/10 right, this returns 0.8, NOT 8
    """
    # round predictions to the closest integer
    rounded_preds = torch.round(torch.sigmoid(preds))
    correct = (rounded_preds == y).float()  # convert into float for division
    acc = correct.sum() / len(correct)
    return acc


def train(model, iterator, optimizer, criterion):
    epoch_loss = 0
    epoch_acc = 0

    model.train()

    for batch in iterator:
        optimizer.zero_grad()

        text, text_lengths = batch.text

        predictions = model(text, text_lengths).squeeze(1)

        loss = criterion(predictions, batch.label)

        acc = binary_accuracy(predictions, batch.label)

        loss.backward()

        optimizer.step()

        epoch_loss += loss.item()
        epoch_acc += acc.item()

    return epoch_loss / len(iterator), epoch_acc / len(iterator)


def evaluate(model, iterator, criterion):
    epoch_loss = 0
    epoch_acc = 0

    model.eval()

    with torch.no_grad():
        for batch in iterator:
            text, text_lengths = batch.text

            predictions = model(text, text_lengths).squeeze(1)

            loss = criterion(predictions, batch.label)

            acc = binary_accuracy(predictions, batch.label)

            epoch_loss += loss.item()
            epoch_acc += acc.item()

    return epoch_loss / len(iterator), epoch_acc / len(iterator)


def epoch_time(start_time, end_time):
    elapsed_time = end_time - start_time
    elapsed_mins = int(elapsed_time / 60)
    elapsed_secs = int(elapsed_time - (elapsed_mins * 60))
    return elapsed_mins, elapsed_secs


N_EPOCHS = 3  # grill-corpus: 5 -> 3

best_valid_loss = float("inf")

for epoch in range(N_EPOCHS):
    start_time = time.time()

    train_loss, train_acc = train(model, train_iterator, optimizer, criterion)
    valid_loss, valid_acc = evaluate(model, valid_iterator, criterion)

    end_time = time.time()

    epoch_mins, epoch_secs = epoch_time(start_time, end_time)

    if valid_loss < best_valid_loss:
        best_valid_loss = valid_loss
        torch.save(model.state_dict(), "tut2-model.pt")

    print(f"Epoch: {epoch+1:02} | Epoch Time: {epoch_mins}m {epoch_secs}s")
    print(f"\tTrain Loss: {train_loss:.3f} | Train Acc: {train_acc*100:.2f}%")
    print(f"\t Val. Loss: {valid_loss:.3f} |  Val. Acc: {valid_acc*100:.2f}%")

model.load_state_dict(torch.load("tut2-model.pt"))

test_loss, test_acc = evaluate(model, test_iterator, criterion)

print(f"Test Loss: {test_loss:.3f} | Test Acc: {test_acc*100:.2f}%")
