"""Run untrusted snippets: a warm worker inside bubblewrap forks one limited child per run.

Parent side only here (no torch): `Sandbox`, `Limits`, `Outcome`, `default_sandbox`.
"""

from checkers.sandbox.errors import SandboxError
from checkers.sandbox.limits import Limits
from checkers.sandbox.outcome import Outcome
from checkers.sandbox.parent import Sandbox, default_sandbox

__all__ = ["Sandbox", "SandboxError", "Limits", "Outcome", "default_sandbox"]
