"""What an export carries besides the attempts (format version 2): the settings table (the
app's settings, each task's hint progress and last check), the cards suspended or buried, and
the code drafts. So a new machine gets the whole user state, not the ratings alone.

Importing merges, as it does attempts, and never loses what this machine has: a setting here
stays (one only the file has is taken), a card suspended in either stays suspended and buried
until the later of the two, a task's draft here stays (one only the file has is written).
Importing the same file twice changes nothing.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from app.clock import parse_stamp, stamp, to_utc
from app.practice.drafts import MAX_DRAFT_BYTES, Draft, DraftError, Drafts
from app.progress.history import MAX_SETTING_BYTES, CardFlags, History

STATE_MEMBERS = ("settings", "card_flags", "drafts")
"""The export's top-level members this module reads and writes, each an object."""


@dataclass(frozen=True)
class UserState:
    settings: Mapping[str, object] = field(default_factory=dict)
    card_flags: Mapping[str, CardFlags] = field(default_factory=dict)
    drafts: Mapping[str, Draft] = field(default_factory=dict)


def current_state(history: History, drafts: Drafts) -> dict[str, object]:
    """The state as the export's members, JSON-ready."""
    flags = {
        card_id: {
            "suspended": flag.suspended,
            "buried_until": stamp(flag.buried_until) if flag.buried_until else None,
        }
        for card_id, flag in sorted(history.card_flags().items())
    }
    kept = {}
    for card_id in drafts.card_ids():
        try:
            draft = drafts.load(card_id)
        except DraftError:
            continue  # a draft grill cannot read is left where it is, as the app leaves it
        if draft is not None:
            kept[card_id] = {"text": draft.text, "saved_at": stamp(draft.saved_at)}
    return {"settings": history.all_settings(), "card_flags": flags, "drafts": kept}


def read_state(envelope: Mapping[str, object]) -> tuple[UserState, list[str]]:
    """The state in an export's members, and each problem placed (`drafts.x.text: ...`); a
    version 1 export has none of them, which is an empty state."""
    problems: list[str] = []
    members = {}
    for name in STATE_MEMBERS:
        value = envelope.get(name, {})
        if not isinstance(value, dict):
            problems.append(f"{name}: expected an object keyed by name")
            value = {}
        members[name] = value
    settings = {}
    for key, value in members["settings"].items():
        if len(repr(value)) > MAX_SETTING_BYTES:
            problems.append(f"settings.{key}: longer than {MAX_SETTING_BYTES:,} characters")
        else:
            settings[key] = value
    flags = {}
    for card_id, value in members["card_flags"].items():
        where = f"card_flags.{card_id}"
        if not isinstance(value, dict) or not isinstance(value.get("suspended"), bool):
            problems.append(
                f'{where}: expected {{"suspended": true or false, "buried_until": ...}}'
            )
            continue
        until, problem = _time(value.get("buried_until"), f"{where}.buried_until", optional=True)
        if problem:
            problems.append(problem)
            continue
        flags[card_id] = CardFlags(value["suspended"], until)
    drafts = {}
    for card_id, value in members["drafts"].items():
        where = f"drafts.{card_id}"
        text = value.get("text") if isinstance(value, dict) else None
        if (
            not isinstance(text, str)
            or len(text.encode("utf-8", "surrogatepass")) > MAX_DRAFT_BYTES
        ):
            problems.append(f"{where}.text: expected the draft's code, at most 1 MiB")
            continue
        if not card_id or "/" in card_id or card_id.startswith("."):
            problems.append(f"{where}: not a card id")
            continue
        saved_at, problem = _time(value.get("saved_at"), f"{where}.saved_at")
        if problem or saved_at is None:
            problems.append(problem or f"{where}.saved_at: required")
            continue
        drafts[card_id] = Draft(text, saved_at)
    return UserState(settings, flags, drafts), problems


def _time(value: object, where: str, *, optional: bool = False) -> tuple[datetime | None, str]:
    if value is None and optional:
        return None, ""
    try:
        return to_utc(parse_stamp(value)), ""  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None, f"{where}: expected a time such as 2026-03-02T09:00:00.000000+00:00"


def merge_state(history: History, drafts: Drafts, state: UserState) -> None:
    """Merge `state` into this machine's, losing nothing of either (see the module's doc)."""
    here = history.all_settings()
    for key, value in state.settings.items():
        if key not in here:
            history.set_setting(key, value)
    flags_here = history.card_flags()
    for card_id, flag in state.card_flags.items():
        mine = flags_here.get(card_id, CardFlags())
        if flag.suspended and not mine.suspended:
            history.set_suspended(card_id, True)
        latest = max(
            (t for t in (mine.buried_until, flag.buried_until) if t is not None), default=None
        )
        if latest is not None and latest != mine.buried_until:
            history.bury(card_id, latest)
    for card_id, draft in state.drafts.items():
        if drafts.load(card_id) is None:
            drafts.save(card_id, draft.text, starter="")
            when = draft.saved_at.timestamp()
            os.utime(drafts.path(card_id), (when, when))
