"""The end-of-mock report: one value the report screen shows and `--report FILE` writes as Markdown."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from app.mock.score import Judgement, MockScore, QuestionScore, score_session
from app.mock.session import MockSession, QuestionRun, Role, StepRecord
from questions.levels import Level


@dataclass(frozen=True)
class MockReport:
    session_id: str
    level: Level
    role: Role
    seed: int | None
    minutes: float | None
    session_overrun: bool
    ended_early: bool
    runs: tuple[QuestionRun, ...]
    score: MockScore
    started_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    planned: float | None = None
    """The whole interview's planned time, every step's budget (what the interview's clock
    counted against); None: the budgets of the steps asked."""

    @property
    def seconds(self) -> float:
        return sum(run.seconds for run in self.runs)

    @property
    def budget(self) -> float:
        """The planned time of the whole interview, as its clock showed it."""
        return self.planned if self.planned is not None else sum(run.budget for run in self.runs)

    @property
    def skipped(self) -> int:
        return sum(q.skipped for q in self.score.questions)

    def study_next(self) -> list[tuple[QuestionRun, QuestionScore]]:
        """Questions not fully answered, weakest first: what to practise after this mock."""
        pairs = [
            (r, s)
            for r, s in zip(self.runs, self.score.questions, strict=True)
            if s.score < 1.0 or s.key_points_missed or s.red_flags_said
        ]
        return sorted(pairs, key=lambda pair: pair[1].score)


def build_report(session: MockSession, judgements: list[Judgement]) -> MockReport:
    runs = session.runs()
    return MockReport(
        session_id=session.session_id,
        level=session.level,
        role=session.role,
        seed=session.seed,
        minutes=session.minutes,
        session_overrun=session.session_overrun,
        ended_early=session.ended_early,
        runs=tuple(runs),
        score=score_session(runs, judgements),
        started_at=session.started_at or datetime.now(UTC),
        planned=session.budget,
    )


def clock(seconds: float) -> str:
    """Elapsed time as m:ss (whole seconds, rounded down)."""
    minutes, secs = divmod(int(max(0.0, seconds)), 60)
    return f"{minutes}:{secs:02d}"


def percent(share: float) -> str:
    return f"{round(share * 100)}%"


def _timing(record: StepRecord) -> str:
    if not record.reached:
        return "not reached"
    note = " (time ran out)" if record.timed_out else ""
    return f"{clock(record.seconds)} of {clock(record.step.budget)}{note}"


def render_markdown(report: MockReport) -> str:
    """The whole report as Markdown: a summary table, each question in detail, what to study."""
    lines = [
        f"# Mock interview, {report.started_at:%Y-%m-%d %H:%M} UTC",
        "",
        f"Level: {report.level} · mode: {report.role} · questions: {len(report.runs)}"
        + (f" · seed: {report.seed}" if report.seed is not None else "")
        + (f" · limit: {report.minutes:g} min" if report.minutes is not None else ""),
        "",
        f"**Overall score: {percent(report.score.overall)}** · time used {clock(report.seconds)}"
        f" of {clock(report.budget)} planned",
    ]
    if report.ended_early:
        lines += [
            "",
            "You ended the interview before the last question; questions not reached score 0.",
        ]
    elif report.session_overrun:
        lines += [
            "",
            "The session's time limit ran out before the end; questions not reached score 0.",
        ]
    if report.skipped:
        lines += [
            "",
            f"{_questions(report.skipped)} left without an answer: skipped, scored 0 and not "
            "recorded in your history, so "
            + ("its schedule is" if report.skipped == 1 else "their schedules are")
            + " unchanged.",
        ]
    # Rows in the questions' order, without their number: at 80 columns the report screen has
    # room for a 40-character card id beside the other columns, and a number before it (or a
    # column of its own) pushed long ids onto a line of their own, cut short.
    lines += ["", "| Card | Score | Time | Flags | Code |", "| --- | --- | --- | --- | --- |"]
    for run, score in zip(report.runs, report.score.questions, strict=True):
        time_cell = (
            "not reached"
            if not run.reached
            else "skipped"
            if score.skipped
            else f"{clock(run.seconds)} / {clock(run.budget)}"
        )
        lines.append(
            f"| `{run.card.id}` | {percent(score.score)} | {time_cell} | "
            f"{len(score.red_flags_said) or '-'} | {score.verdict or '-'} |"
        )
    for n, (run, score) in enumerate(zip(report.runs, report.score.questions, strict=True), 1):
        lines += ["", *_question_section(n, run, score, report)]
    lines += ["", "## What to study next", ""]
    study = report.study_next()
    if not study:
        lines.append("Nothing: every question was answered in full. Try a higher `--level`.")
    for run, score in study:
        missed = _listed(score.key_points_missed)
        detail = f"missed: {missed}" if missed else "every key point made"
        if score.red_flags_said:
            detail += f"; avoid saying: {_listed(score.red_flags_said)}"
        if score.verdict not in (None, "clean"):
            detail += f"; code: {score.verdict}"
        if score.skipped:
            detail = "skipped, " + detail
        lines.append(f"- `{run.card.id}` ({percent(score.score)}): {detail}")
    return "\n".join(lines) + "\n"


def _questions(n: int) -> str:
    return "1 question" if n == 1 else f"{n} questions"


def _listed(sentences: tuple[str, ...]) -> str:
    """Sentences run together with semicolons, without their own final full stops."""
    return "; ".join(sentence.rstrip(".") for sentence in sentences)


def _question_section(
    n: int, run: QuestionRun, score: QuestionScore, report: MockReport
) -> list[str]:
    lines = [
        f"## {n}. {run.card.question}",
        "",
        f"Card `{run.card.id}` · score {percent(score.score)} · rating {score.rating}",
    ]
    if not run.reached:
        why = (
            "you ended the interview before it"
            if report.ended_early
            else "the session's time ran out first"
        )
        return [*lines, "", f"Not reached: {why}."]
    if score.skipped:
        lines = lines[:-1] + [f"Card `{run.card.id}` · skipped (nothing answered) · not recorded"]
        return [
            *lines,
            "",
            "Skipped: you moved on without answering it. It scores 0 here, but is not recorded "
            "as a failed recall: the card keeps its schedule.",
        ]
    lines += ["", f"- Answer: {_timing(run.answer)}"]
    if run.code:
        lines.append(f"- Code task: {_timing(run.code)}")
    lines += ["", "Key points:"]
    lines += [
        f"- [{'x' if kp.point in score.key_points_hit else ' '}] {kp.point}"
        for kp in run.card.key_points
    ]
    if score.red_flags_said:
        lines += ["", "Red flags said:", *[f"- {flag}" for flag in score.red_flags_said]]
    if run.answer.text.strip():
        lines += [
            "",
            "Your answer:",
            "",
            *[f"> {line}" for line in run.answer.text.strip().splitlines()],
        ]
    if run.code:
        verdict = run.code.verdict
        message = f": {verdict.message}" if verdict and verdict.message else ""
        lines += ["", f"Code verdict: **{score.verdict}**{message}"]
    for record in run.follow_ups:
        follow_up = run.card.follow_ups[record.step.follow_up or 0]
        lines += ["", f"Follow-up: *{follow_up.question}* ({_timing(record)})", ""]
        if record.text.strip():
            lines.append(f"- Said: {' '.join(record.text.split())}")
        lines.append(f"- Expected: {follow_up.answer}")
    return lines
