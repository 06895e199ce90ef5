"""Option types the commands share."""

from __future__ import annotations

import math
from typing import Any

import click

__all__ = ["FiniteFloatRange"]


class FiniteFloatRange(click.FloatRange):
    """``click.FloatRange`` that also refuses ``nan`` and ``inf``: NaN compares false with every bound, so the
    range alone lets it through (``--effect nan`` reached the planner; ``--time-scale nan`` ran a simulator)."""

    name = "finite float range"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number
