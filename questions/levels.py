"""Seniority levels, kept free of pydantic so `grill --help` can list them cheaply."""

from typing import Literal

Level = Literal["junior", "middle", "senior", "principal"]
LEVELS: tuple[Level, ...] = ("junior", "middle", "senior", "principal")
