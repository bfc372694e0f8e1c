"""The first `make run` says what it is doing while pip installs PyTorch, rather than sitting
silent for minutes, and the README says how long the first setup takes."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def setup_recipe() -> list[str]:
    lines = (ROOT / "Makefile").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("$(STAMP):"))
    recipe = []
    for line in lines[start + 1 :]:
        if not line.startswith("\t"):
            break
        recipe.append(line.strip())
    return recipe


def test_each_setup_step_is_announced_and_pip_shows_its_progress():
    recipe = setup_recipe()
    commands = [line for line in recipe if not line.startswith("@echo")]
    for step in ("-m venv", "pip install"):
        at = next(i for i, line in enumerate(recipe) if step in line)
        assert recipe[at - 1].startswith("@echo") or recipe[at - 2].startswith("@echo"), step
    pip = next(line for line in commands if "pip install" in line)
    assert not re.search(r"\s-q\b|--quiet", pip), (
        "pip's own progress is what shows the minutes pass"
    )


def test_the_readme_says_how_long_the_first_setup_takes():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.search(r"The first `make` takes a few\s+minutes", readme)
