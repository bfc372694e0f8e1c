"""Judging, in the parent process (never torch, never the measuring side): the rule that turns
a run's measurements into a verdict (`rule`), with what it reads of them (`growth`, `curve`),
of the snippet's source (`source`), and a code task's contract held against the reference
solution's run (`contract`).
"""

from checkers.judge.rule import NO_GRAPH, TAMPERED, judge, judge_with_edit

__all__ = ["NO_GRAPH", "TAMPERED", "judge", "judge_with_edit"]
