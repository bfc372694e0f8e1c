"""Turn a mock's report into history attempts, so a mock feeds scheduling like practice does."""

from __future__ import annotations

from collections.abc import Mapping

from app.mock.report import MockReport
from app.mock.session import QuestionRun
from app.practice.solution import SolutionView, viewed_for
from app.progress.attempt import Attempt, CodeResult
from app.progress.rating import SolutionViewed


def attempts(report: MockReport, views: Mapping[str, SolutionView] | None = None) -> list[Attempt]:
    """One `Attempt(mode="mock")` per question reached, grouped by the session's id.

    `views`: per card, a view of its code task's solution no attempt has recorded yet
    (`app.practice.solution`); the mock shows no solution, but one seen before it (`grill task
    solution`) caps the question's attempt as it would in practice.

    Questions never reached are not recorded: nothing was attempted, and an Again for them
    would punish the card for the session's clock. Nor are questions skipped (reached but left
    without an answer): an Again would say the candidate failed to recall what they never
    tried, and make the card due.
    """
    result = []
    for run, score in zip(report.runs, report.score.questions, strict=True):
        if not run.reached or score.skipped:
            continue
        phases = {"answer": run.answer.seconds}
        if run.code:
            phases["code"] = run.code.seconds
        if run.follow_ups:
            phases["follow_ups"] = sum(r.seconds for r in run.follow_ups)
        result.append(
            Attempt(
                card_id=run.card.id,
                mode="mock",
                rating=score.rating,
                level=report.level,
                phase_seconds=phases,
                key_points_hit=score.key_points_hit,
                key_points_missed=score.key_points_missed,
                red_flags_said=score.red_flags_said,
                answer_text=run.answer.text,
                code=_code_result(run),
                session_id=report.session_id,
                solution_viewed=_solution_viewed(run, (views or {}).get(run.card.id)),
                started_at=report.started_at,
            )
        )
    return result


def _code_result(run: QuestionRun) -> CodeResult | None:
    if run.code is None or run.code.verdict is None:
        return None
    verdict = run.code.verdict
    return CodeResult(
        verdict=verdict.verdict,
        pattern=verdict.pattern,
        growth_bytes_per_step=verdict.growth_bytes_per_step,
        retained_paths=tuple(r.path for r in verdict.retained),
        code=run.code.text,
    )


def _solution_viewed(run: QuestionRun, view: SolutionView | None) -> SolutionViewed | None:
    task = run.card.code_task
    if task is None:
        return None
    return viewed_for(view, run.code.text if run.code is not None else None, task.solution)
