"""An Attempt as plain JSON data: the shape of a history row's columns and of an export.

`attempt_from_dict` trusts its input (rows grill wrote itself); files from outside go
through `app.progress.transfer`, which validates them first. A field renamed in the code keeps
its stored name (`STORED_NAMES`), so history files and exports stay as they were.
"""

from __future__ import annotations

from dataclasses import asdict

from app.clock import parse_stamp, stamp
from app.progress.attempt import Attempt, CodeResult

STORED_NAMES = {"level": "tier"}
"""An Attempt's field -> its name in a history row and an export, where it differs."""


def stored(data: dict) -> dict:
    """Field names -> stored names."""
    return {STORED_NAMES.get(key, key): value for key, value in data.items()}


def from_stored(data: dict) -> dict:
    """Stored names -> field names."""
    fields = {name: field for field, name in STORED_NAMES.items()}
    return {fields.get(key, key): value for key, value in data.items() if key not in STORED_NAMES}


def attempt_to_dict(attempt: Attempt) -> dict:
    data = stored(asdict(attempt))
    data["started_at"] = stamp(attempt.started_at)
    for name in ("key_points_hit", "key_points_missed", "red_flags_said"):
        data[name] = list(data[name])
    if attempt.code is not None:
        data["code"]["retained_paths"] = list(attempt.code.retained_paths)
    return data


def attempt_from_dict(data: dict) -> Attempt:
    data = from_stored(data)
    data["started_at"] = parse_stamp(data["started_at"])
    for name in ("key_points_hit", "key_points_missed", "red_flags_said"):
        data[name] = tuple(data[name])
    if data.get("code") is not None:
        code = dict(data["code"])
        code["retained_paths"] = tuple(code["retained_paths"])
        data["code"] = CodeResult(**code)
    return Attempt(**data)
