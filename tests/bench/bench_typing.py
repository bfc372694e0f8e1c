"""What a keystroke costs in the answer and code editors once much has been typed:
grill's editors against Textual's own TextArea, side by side in one run.

Prose has no newline (a terminal without bracketed paste sends each character as a key, and
100 KB typed so took a minute); code has a newline every 60 characters. Each editor is brought
to each stage by one insert of the text typing would have left (typing 100,000 keys into
Textual's TextArea one by one would take many minutes: its cost per key grows with the line),
then KEYS more keys are sent as key events through the app's queue, and the CPU time they
cost is divided among them (wall time would count the test pilot's waits). Peak memory is the
process's own, over all the stages; of typing 100 KB key by key it says little, as only a few
hundred keys are typed as keys here (tests/ui/test_ui_editor.py measures what a key keeps).
Textual's TextArea grows with what was typed (prose: the line is re-wrapped on each key; code:
all of it is re-parsed and re-highlighted); grill's stays flat.
Run: .venv/bin/python tests/bench/bench_typing.py
"""

from __future__ import annotations

import asyncio
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STAGES = (1_000, 10_000, 100_000)
KEYS = {1_000: 100, 10_000: 100, 100_000: 20}
"""Keys timed at each stage (fewer at 100,000, where one of Textual's costs a few hundred ms)."""
PROSE = "the loss keeps its graph alive so detach it before you store it "
CODE = "total = total + loss.item()  # keep the number, not the graph\n"


def one_run(kind: str, editor: str) -> None:
    """In a child process: bring the editor to each stage, time KEYS[stage] keys there, print
    the figures."""
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    from pilot_wait import drained
    from textual import events
    from textual.app import App, ComposeResult
    from textual.widgets import TextArea

    from app.ui.widgets.editor import BoundedTextArea

    def make() -> TextArea:
        if kind == "code":
            cls = BoundedTextArea if editor == "grill" else TextArea
            return cls.code_editor(language="python")
        if editor == "grill":
            return BoundedTextArea(soft_wrap=True, fill_lines=True)
        return TextArea(soft_wrap=True)

    class Editor(App[None]):
        def compose(self) -> ComposeResult:
            yield make()

    text = PROSE if kind == "prose" else CODE

    async def main() -> None:
        app = Editor()
        async with app.run_test(size=(80, 24)) as pilot:
            area = app.query_one(TextArea)
            area.focus()
            await drained(pilot)
            typed, figures = 0, []

            async def type_keys(count: int) -> None:
                nonlocal typed
                for n in range(count):
                    char = text[typed % len(text)]
                    name = {" ": "space", "\n": "enter"}.get(char, char)
                    app.post_message(events.Key(name, char))
                    typed += 1
                    if n % 10 == 9:
                        await drained(pilot)
                await drained(pilot)

            for stage in STAGES:
                more = stage - typed
                block = (text * (more // len(text) + 2))[typed % len(text) :][:more]
                area.move_cursor(area.document.end)
                area.insert(block)  # what typing the next `more` keys would leave
                typed = stage
                await drained(pilot)
                start = time.process_time()  # the pilot's waits for idle cost no CPU
                await type_keys(KEYS[stage])
                figures.append((time.process_time() - start) / KEYS[stage] * 1000)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(" ".join(f"{ms:.2f}" for ms in figures), f"{peak:.0f}")

    asyncio.run(main())


def main() -> None:
    if len(sys.argv) == 3:
        one_run(sys.argv[1], sys.argv[2])
        return
    stages = "".join(f"{f'after {stage:,}':>15}" for stage in STAGES)
    keys = ", ".join(f"{KEYS[stage]} at {stage:,}" for stage in STAGES)
    print("CPU ms a key after this many characters typed, the ratio of the last to the first,")
    print(f"and the process's peak memory (keys timed: {keys}); 2 shared cores here")
    print(f"{'':30}{stages}{'ratio':>8}{'peak':>9}")
    for kind in ("prose", "code"):
        for editor in ("textual", "grill"):
            done = subprocess.run(
                [sys.executable, __file__, kind, editor],
                capture_output=True,
                text=True,
                check=True,
                cwd=ROOT,
            )
            *costs, peak = done.stdout.split()
            ms = [float(cost) for cost in costs]
            label = f"{kind} ({'Textual TextArea' if editor == 'textual' else 'grill editor'})"
            cells = "".join(f"{cost:>13.2f}ms" for cost in ms)
            print(f"{label:30}{cells}{ms[-1] / ms[0]:>8.2f}{peak:>6} MB")


if __name__ == "__main__":
    main()
