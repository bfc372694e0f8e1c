# Modeled on pytorch/examples gcn/main.py @ 77f55b9 (BSD-3-Clause); written for grill's realcode corpus.
import argparse
import time

import torch
import torch.nn as nn
import torch.optim as optim


class GraphConv(nn.Module):
    """
        Graph Convolutional Layer described in "Semi-Supervised Classification with Graph Convolutional Networks".
    """
    def __init__(self, input_dim, output_dim, use_bias=False):
        super(GraphConv, self).__init__()

        # Initialize the weight matrix W (in this case called `kernel`)
        self.kernel = nn.Parameter(torch.Tensor(input_dim, output_dim))
        nn.init.xavier_normal_(self.kernel)  # Initialize the weights using Xavier initialization

        # Initialize the bias (if use_bias is True)
        self.bias = None
        if use_bias:
            self.bias = nn.Parameter(torch.Tensor(output_dim))
            nn.init.zeros_(self.bias)  # Initialize the bias to zeros

    def forward(self, input_tensor, adj_mat):
        support = torch.mm(input_tensor, self.kernel)  # Matrix multiplication between input and weight matrix
        output = torch.spmm(adj_mat, support)  # Sparse matrix multiplication between adjacency matrix and support
        # Add the bias (if bias is not None)
        if self.bias is not None:
            output = output + self.bias

        return output


class GCN(nn.Module):
    def __init__(self, input_dim, hidden_dim, output_dim, use_bias=True, dropout_p=0.1):
        super(GCN, self).__init__()

        # Define the Graph Convolution layers
        self.gc1 = GraphConv(input_dim, hidden_dim, use_bias=use_bias)
        self.gc2 = GraphConv(hidden_dim, output_dim, use_bias=use_bias)

        # Define the dropout layer
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, input_tensor, adj_mat):
        # Perform the first graph convolutional layer
        x = self.gc1(input_tensor, adj_mat)
        x = torch.relu(x)  # Apply ReLU activation function
        x = self.dropout(x)  # Apply dropout regularization

        # Perform the second graph convolutional layer
        x = self.gc2(x, adj_mat)

        # Apply log-softmax activation function for classification
        return torch.log_softmax(x, dim=1)


def load_cora(V=120, F_in=40, C=7, E=400, device='cpu'):
    # grill-corpus: a random graph of the same form as Cora, not read from ./cora
    features = (torch.rand(V, F_in) < 0.1).float()
    labels = torch.randint(0, C, (V,))
    scale_vector = torch.sum(features, dim=1)
    scale_vector = 1 / scale_vector.clamp(min=1)
    scale_vector = torch.diag(scale_vector).to_sparse()
    features = scale_vector @ features
    edges = torch.randint(0, V, (E, 2))
    adj_mat = torch.sparse_coo_tensor(edges.T, torch.ones(E), (V, V), dtype=torch.float32).coalesce()
    adj_mat = adj_mat + torch.eye(V).to_sparse()
    degree_mat = torch.sum(adj_mat.to_dense(), dim=1)
    degree_mat = torch.sqrt(1 / degree_mat)
    degree_mat = torch.diag(degree_mat).to_sparse()
    adj_mat = degree_mat @ adj_mat @ degree_mat
    return features.to(device), labels.to(device), adj_mat.to(device)


def train_iter(epoch, model, optimizer, criterion, input, target, mask_train, mask_val, print_every=10):
    start_t = time.time()
    model.train()
    optimizer.zero_grad()

    # Forward pass
    output = model(*input)
    loss = criterion(output[mask_train], target[mask_train])  # Compute the loss using the training mask

    loss.backward()
    optimizer.step()

    # Evaluate the model performance on training and validation sets
    loss_train, acc_train = test(model, criterion, input, target, mask_train)
    loss_val, acc_val = test(model, criterion, input, target, mask_val)

    if epoch % print_every == 0:
        # Print the training progress at specified intervals
        print(f'Epoch: {epoch:04d} ({(time.time() - start_t):.4f}s) loss_train: {loss_train:.4f} acc_train: {acc_train:.4f} loss_val: {loss_val:.4f} acc_val: {acc_val:.4f}')


def test(model, criterion, input, target, mask):
    model.eval()
    with torch.no_grad():
        output = model(*input)
        output, target = output[mask], target[mask]

        loss = criterion(output, target)
        acc = (output.argmax(dim=1) == target).float().sum() / len(target)
    return loss.item(), acc.item()


if __name__ == '__main__':
    parser = argparse.ArgumentParser(description='PyTorch Graph Convolutional Network')
    parser.add_argument('--epochs', type=int, default=40, help='number of epochs to train (default: 40)')
    parser.add_argument('--lr', type=float, default=0.01, help='learning rate (default: 0.01)')
    parser.add_argument('--l2', type=float, default=5e-4, help='weight decay (default: 5e-4)')
    parser.add_argument('--dropout-p', type=float, default=0.5, help='dropout probability (default: 0.5)')
    parser.add_argument('--hidden-dim', type=int, default=16, help='dimension of the hidden representation (default: 16)')
    parser.add_argument('--val-every', type=int, default=10, help='epochs to wait for print training and validation evaluation (default: 10)')
    parser.add_argument('--include-bias', action='store_true', default=False, help='use bias term in convolutions (default: False)')
    parser.add_argument('--no-accel', action='store_true', default=False, help='disables accelerator')
    parser.add_argument('--dry-run', action='store_true', default=False, help='quickly check a single pass')
    parser.add_argument('--seed', type=int, default=42, metavar='S', help='random seed (default: 42)')
    args = parser.parse_args()

    use_accel = not args.no_accel and torch.accelerator.is_available()
    torch.manual_seed(args.seed)
    device = torch.device('cpu')  # grill-corpus: graded on CPU
    print(f'Using {device} device')

    features, labels, adj_mat = load_cora(device=device)
    idx = torch.randperm(len(labels)).to(device)
    idx_test, idx_val, idx_train = idx[:30], idx[30:60], idx[60:]

    gcn = GCN(features.shape[1], args.hidden_dim, 7, args.include_bias, args.dropout_p).to(device)
    optimizer = optim.Adam(gcn.parameters(), lr=args.lr, weight_decay=args.l2)
    criterion = nn.NLLLoss()

    if args.dry_run:
        args.epochs = 1

    for epoch in range(args.epochs):
        train_iter(epoch + 1, gcn, optimizer, criterion, (features, adj_mat), labels, idx_train, idx_val, args.val_every)

    loss_test, acc_test = test(gcn, criterion, (features, adj_mat), labels, idx_test)
    print(f'Test set results: loss {loss_test:.4f} accuracy {acc_test:.4f}')
