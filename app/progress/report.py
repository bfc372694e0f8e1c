"""Stats as a Markdown report: what `grill stats` prints and `grill export --format md` writes."""

from __future__ import annotations

from app.progress.stats import Missed, Stats
from app.wording import count

SPARK = "·▁▂▃▄▅▆▇█"
"""Index 0 marks a day without practice; the rest scale with the busiest day."""


def percent(share: float | None) -> str:
    return "–" if share is None else f"{share:.0%}"


def seconds(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f} s"


def activity_strip(counts: list[int]) -> str:
    """One block character per day, taller for busier days."""
    top = max(counts, default=0)
    if top == 0:
        return SPARK[0] * len(counts)
    return "".join(
        SPARK[0] if n == 0 else SPARK[max(1, round(n / top * (len(SPARK) - 1)))] for n in counts
    )


def markdown_report(stats: Stats) -> str:
    timing = stats.answer_time
    lines = [
        "# grill progress",
        "",
        f"As of {stats.generated_at:%Y-%m-%d %H:%M} UTC: {count(stats.attempts, 'attempt')} on "
        f"{count(stats.cards_seen, 'card')}, {stats.due_today} due today, "
        f"a streak of {count(stats.streak_days, 'day')}.",
        "",
        "## Packs",
        "",
        *_table(
            ["pack", "cards", "seen", "due today", "reviews", "retention"],
            [
                [p.pack, p.cards, p.seen, p.due, p.reviews, percent(p.retention)]
                for p in stats.packs
            ],
        ),
        "",
        "## Retention by tier",
        "",
        *_table(
            ["tier", "reviews", "retention"],
            [
                [figures.level, figures.reviews, percent(figures.retention)]
                for figures in stats.levels
            ],
        ),
        "",
        "## Time per answer",
        "",
        f"{timing.answers} timed answers, {seconds(timing.mean_seconds)} on average. Against the cards' budgets "
        f"(basic {seconds(timing.mean_basic_budget)}, solid {seconds(timing.mean_solid_budget)} on average): "
        f"{percent(timing.within_basic_share)} within basic, {percent(timing.within_solid_share)} within solid.",
        "",
        "## Key points most often missed",
        "",
        *_misses(stats.missed_key_points),
        "",
        "## Red flags most often said",
        "",
        *_misses(stats.red_flags_said),
        "",
        f"## Activity, last {len(stats.activity)} days",
        "",
        f"`{activity_strip([day.attempts for day in stats.activity])}` "
        f"({stats.activity[0].day} to {stats.activity[-1].day}, "
        f"{sum(day.attempts for day in stats.activity)} attempts)"
        if stats.activity
        else "No days.",
        "",
    ]
    return "\n".join(lines)


def _table(header: list[str], rows: list[list]) -> list[str]:
    if not rows:
        return ["Nothing yet."]
    return [
        f"| {' | '.join(header)} |",
        "| --- |" + " ---: |" * (len(header) - 1),
        *(f"| {' | '.join(str(cell) for cell in row)} |" for row in rows),
    ]


def _misses(missed: tuple[Missed, ...]) -> list[str]:
    if not missed:
        return ["None yet."]
    return [f"{n}. {m.text} ({m.card_id}, {m.times}×)" for n, m in enumerate(missed, 1)]
