"""The one error the sandbox raises to its caller (never for what a snippet does)."""


class SandboxError(RuntimeError):
    """The sandbox itself cannot run: the worker failed to start, bubblewrap was required
    but is unusable, or CUDA was asked for where there is none. `kind` is `device` for the
    last, `sandbox` otherwise (see `checkers.verdict.GRILL_FAULTS`)."""

    def __init__(self, message: str, kind: str = "sandbox") -> None:
        super().__init__(message)
        self.kind = kind
