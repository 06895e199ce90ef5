"""The phases of an A/B/A trial, named once: every other module takes them from here."""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["Phase", "PHASES", "Control", "CONTROLS"]

Phase = Literal["before", "candidate", "restored"]
PHASES: tuple[Phase, ...] = get_args(Phase)  # in the order they run
Control = Literal["before", "restored"]  # the original configuration, measured around the candidate
CONTROLS: tuple[Control, ...] = get_args(Control)
