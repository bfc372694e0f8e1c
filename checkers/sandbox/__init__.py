"""Run untrusted snippets: a warm worker inside bubblewrap forks one limited child per run.

Parent side only here (no torch): `Sandbox`, `Limits`, `Outcome`.
"""

from checkers.sandbox.errors import SandboxError
from checkers.sandbox.limits import Limits
from checkers.sandbox.outcome import Outcome
from checkers.sandbox.parent import Sandbox

__all__ = ["Sandbox", "SandboxError", "Limits", "Outcome"]
