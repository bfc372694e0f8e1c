"""Why a fix people really try did not help, for a run that ended in its own error: the
error torch raises names the symptom, this names the cause. Pure text, no torch."""

from __future__ import annotations

NO_GRAPH_BACKWARD = "does not require grad and does not have a grad_fn"

NO_GRAD_HINT = (
    "Under `torch.no_grad()` nothing records a graph, so `backward()` has nothing to run"
    " through: wrapping the whole step stops the leak by no longer training. Keep the forward"
    " and backward outside it, and use it only for what needs no gradient (evaluation,"
    " logging, an EMA update); to stop keeping graphs, keep `.detach()`ed values."
)


def error_hint(message: str) -> str:
    """The hint for a run that raised `message`, or "" where grill has none."""
    return NO_GRAD_HINT if NO_GRAPH_BACKWARD in message else ""
