"""Run a candidate's PyTorch snippet in a sandbox and grade it for retained autograd graphs.

Nothing here imports Textual; torch is imported only inside the sandbox child (and by the
in-process API for users' own tests).
"""
