"""Run a candidate's PyTorch snippet in a sandbox and grade it for retained autograd graphs.

Nothing here imports Textual; torch is imported only inside the sandbox child (and by the
in-process API for users' own tests).
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from checkers.testing import assert_no_graph_leak as assert_no_graph_leak


def __getattr__(name: str) -> object:
    """`checkers.assert_no_graph_leak` loads torch only when first used."""
    if name == "assert_no_graph_leak":
        from checkers.testing import assert_no_graph_leak

        return assert_no_graph_leak
    raise AttributeError(f"module 'checkers' has no attribute {name!r}")
