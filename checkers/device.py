"""Where a snippet may be asked to run: one definition for the CLI, the sandbox and the cards."""

from typing import Literal, get_args

Device = Literal["auto", "cpu", "cuda"]
"""`auto` takes CUDA when the machine has a usable GPU, else the CPU."""
DEVICES: tuple[Device, ...] = get_args(Device)
