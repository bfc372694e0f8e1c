"""The candidate's code for each code task, kept between sessions: one file per task,
`<data folder>/drafts/<card-id>.py`, written whole (a temporary file renamed over the old one,
so a crash leaves the previous draft or the new one, never half of one).

A draft is code that differs from the starter: code put back to the starter has no draft. The
practice screen restores a task's draft when the task opens; mock interviews start from the
starter and keep none. Headless: no Textual here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from app import paths
from checkers.inputs import FileRefused, read_file
from checkers.outputs import write_whole

MAX_DRAFT_BYTES = 1024 * 1024
"""A draft larger than this is not restored (the editor would crawl; no fix is that long)."""


class DraftError(OSError):
    """A draft could not be read or written; the message says which file and why."""


@dataclass(frozen=True)
class Draft:
    text: str
    saved_at: datetime


class Drafts:
    """The drafts folder. Every method raises DraftError (one sentence) rather than OSError."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder if folder is not None else paths.data_dir() / "drafts"

    def path(self, card_id: str) -> Path:
        return self.folder / f"{card_id}.py"

    def card_ids(self) -> list[str]:
        """The tasks that have a draft (an export carries them); none when there is no folder."""
        try:
            names = sorted(os.listdir(self.folder))
        except OSError:
            return []
        return [name[:-3] for name in names if name.endswith(".py") and not name.startswith(".")]

    def load(self, card_id: str) -> Draft | None:
        """The task's draft, or None when it has none. Read through the one reader: a draft
        that is a pipe, a device or a folder, or over MAX_DRAFT_BYTES, is refused unread."""
        path = self.path(card_id)
        try:
            raw = read_file(path, role="a draft", cap=MAX_DRAFT_BYTES)
            saved_at = datetime.fromtimestamp(path.stat().st_mtime, UTC)
            text = raw.decode("utf-8")
        except FileNotFoundError:
            return None
        except FileRefused as refused:
            raise DraftError(f"draft {refused}") from None
        except UnicodeDecodeError:
            raise DraftError(f"draft {path} is not UTF-8 text") from None
        except OSError as error:
            raise DraftError(f"draft {path} cannot be read ({error.strerror})") from None
        return Draft(text, saved_at)

    def save(self, card_id: str, text: str, starter: str) -> None:
        """Keep `text` as the task's draft; code equal to the starter removes the draft."""
        if text == starter:
            self.clear(card_id)
            return
        path = self.path(card_id)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_whole(path, text)
        except OSError as error:
            raise DraftError(f"draft {path} cannot be written ({error.strerror})") from None

    def clear(self, card_id: str) -> None:
        path = self.path(card_id)
        try:
            path.unlink(missing_ok=True)
        except OSError as error:
            raise DraftError(f"draft {path} cannot be removed ({error.strerror})") from None
