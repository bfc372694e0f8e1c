"""The policy: what a snippet may do inside its process. It keeps the snippet away from grill's
own machinery (the ledger, the result channel, frames, code, closures and globals that are not
the snippet's, `sys.modules`, interpreter-global state) and says plainly, at the candidate's
line, when code reaches for what the sandbox cannot offer (processes, the network, native code,
compilation, files outside the run's folder). Everything else, ordinary Python and the whole
computational surface of torch, runs. Runs in the sandbox child (and the grader's in-process
tests).

`tables` (pure data) sits at the bottom; `refusal` (the run's state and its errors) and
`standins` above it; `identity` (what a snippet may hold: the capability model, and the module
proxies), `views` (os and sys as a snippet sees them) and `guards` (what rewritten code calls)
next; `transformer` (compile time) and `runtime` (the namespace, the run) on top.
"""

from checkers.policy.guards import measuring
from checkers.policy.refusal import CandidateError, Measuring, Ranked, Refused, is_namespace
from checkers.policy.runtime import (
    PRINT_LIMIT,
    candidate_namespace,
    ended_at,
    finish,
    notes,
    run_candidate,
)
from checkers.policy.transformer import Compiled, compile_candidate

__all__ = [
    "PRINT_LIMIT",
    "CandidateError",
    "Compiled",
    "Measuring",
    "Ranked",
    "Refused",
    "candidate_namespace",
    "compile_candidate",
    "ended_at",
    "finish",
    "is_namespace",
    "measuring",
    "notes",
    "run_candidate",
]
