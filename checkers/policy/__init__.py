"""The policy: what a snippet may do inside its process. It keeps the snippet away from grill's
own machinery and says plainly, at the candidate's line, when code reaches for what the
sandbox cannot offer. Runs in the sandbox child only (and in the grader's in-process tests).

`tables` (pure data) sits at the bottom; `refusal` and `standins` above it; `identity` (what
a snippet may hold, and the module proxies) and `guards` (what rewritten code calls) next;
`transformer` (compile time) and `runtime` (the namespace, the run) on top.
"""

from checkers.policy.refusal import CandidateError, Refused
from checkers.policy.runtime import PRINT_LIMIT, candidate_namespace, run_candidate
from checkers.policy.transformer import Compiled, compile_candidate

__all__ = [
    "PRINT_LIMIT",
    "CandidateError",
    "Compiled",
    "Refused",
    "candidate_namespace",
    "compile_candidate",
    "run_candidate",
]
