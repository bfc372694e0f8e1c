"""A card's seniority level and importance, kept free of pydantic so `grill --help` can list
them and a start from the pack cache can check them cheaply."""

from typing import Literal

Level = Literal["junior", "middle", "senior", "principal"]
LEVELS: tuple[Level, ...] = ("junior", "middle", "senior", "principal")

Importance = Literal["must know", "should know", "nice to know"]
IMPORTANCES: tuple[Importance, ...] = ("must know", "should know", "nice to know")
