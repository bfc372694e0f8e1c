"""The one error the sandbox raises to its caller (never for what a snippet does)."""


class SandboxError(RuntimeError):
    """The sandbox itself cannot run: the worker failed to start, bubblewrap was required
    but is unusable, or CUDA was asked for where there is none."""
