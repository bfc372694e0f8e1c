"""torch.sparse: a sparse adjacency matrix in a graph layer (torch.sparse.mm, sparse_coo_tensor)."""
import torch
import torch.nn as nn

n = 20
edges = torch.randint(0, n, (2, 60))
adj = torch.sparse_coo_tensor(edges, torch.ones(60), (n, n)).coalesce()
deg = torch.sparse.sum(adj, dim=1).to_dense().clamp(min=1)
features, labels = torch.randn(n, 5), torch.randint(0, 3, (n,))
lin1, lin2 = nn.Linear(5, 8), nn.Linear(8, 3)
opt = torch.optim.Adam(list(lin1.parameters()) + list(lin2.parameters()), lr=1e-2)
for epoch in range(30):
    h = torch.relu(torch.sparse.mm(adj, lin1(features)) / deg[:, None])
    out = torch.sparse.mm(adj, lin2(h)) / deg[:, None]
    loss = nn.functional.cross_entropy(out, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(adj.is_sparse, loss.item())
