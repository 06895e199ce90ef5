"""How figures are written, everywhere they are shown (terminal, pages, verify).

Formatting only: rounding for display and words for signs. Every value comes
from :mod:`evidence_kit.analyze`; nothing here computes a figure.
"""

from __future__ import annotations

import math
from collections.abc import Callable

__all__ = [
    "listed",
    "seconds",
    "percent",
    "percent_beside",
    "beside",
    "signed_percent",
    "faster_slower",
    "higher_lower",
    "count",
    "ratio",
    "tokens",
    "recorded",
    "dash",
    "MINUS",
]

MINUS = "\u2212"
dash = "\u2014"


def seconds(value: float | None) -> str:
    """Seconds to the millisecond (``1.735``), with at least three significant digits below
    0.1 s (``0.0512``, ``0.00700``), so fast (simulated) requests keep their resolution."""
    if value is None:
        return dash
    decimals = 3
    if 0 < abs(value) < 0.1:
        decimals = min(9, 3 + int(-math.floor(math.log10(abs(value)))) - 1)
    return f"{value:.{decimals}f}"


def tokens(value: float | None) -> str:
    """A token count, possibly a half from an even-count median: ``812`` or ``812.5``."""
    if value is None:
        return dash
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"


def count(value: int | None) -> str:
    """An integer with thousands separators: ``1,330,579``."""
    return dash if value is None else f"{value:,}"


def listed(parts: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def percent(value: float | None) -> str:
    """An unsigned percentage to two decimals: ``9.24%``."""
    return dash if value is None else f"{abs(value):.2f}%"


def signed_percent(value: float | None) -> str:
    """A signed percentage with a true minus sign: ``+38.60%``, ``−40.63%``."""
    if value is None:
        return dash
    text = f"{abs(value):.2f}%"
    if text == "0.00%":
        return text
    return ("+" if value > 0 else MINUS) + text


def _direction(change_pct: float | None, down: str, up: str) -> str:
    if change_pct is None:
        return "not comparable"
    text = percent(change_pct)
    if text == "0.00%":
        return "no different (0.00%)"
    return f"{text} {down if change_pct < 0 else up}"


def beside(size: float, decimals: int, want: object, side: Callable[[float], object]) -> str:
    """``size`` to ``decimals`` places, or as many more (up to nine) as it takes for ``side`` of the text
    to be ``want`` (what the rule says of the value); past nine, the shortest text that is the value
    itself. A figure beside a bound never rounds onto or across it."""
    for places in range(decimals, 10):
        text = f"{size:.{places}f}"
        if side(float(text)) == want:
            return text
    return repr(size)


def percent_beside(value: float, bound: float | None) -> str:
    """:func:`percent`, with as many more decimals (:func:`beside`) as it takes for the text to fall on the
    same side of ``bound`` as the value does under the rule's tolerance (``groups.reaches``): 9.996%
    under a 10% threshold is ``9.996%``, never ``10.00%`` beside a verdict that says it did not clear."""
    size = abs(value)
    if bound is None:
        return percent(value)
    return beside(size, 2, size >= bound - 1e-9, lambda text: text >= bound) + "%"


def faster_slower(change_pct: float | None, *, faster_bound: float | None = None, slower_bound: float | None = None) -> str:
    """A latency change in words: ``9.24% slower`` or ``14.55% faster`` (sign convention: negative is faster).
    With a bound (in percent) on its side, the figure never rounds onto or across it (:func:`percent_beside`)."""
    if change_pct is None or change_pct == 0:
        return _direction(change_pct, "faster", "slower")
    bound = faster_bound if change_pct < 0 else slower_bound
    if bound is None:
        return _direction(change_pct, "faster", "slower")
    return f"{percent_beside(change_pct, bound)} {'faster' if change_pct < 0 else 'slower'}"


def higher_lower(change_pct: float | None) -> str:
    """'23.10% higher' or '4.00% lower' (for a statistic that is not a speed: tokens, a tail)."""
    return _direction(change_pct, "lower", "higher")


def ratio(value: float | None) -> str:
    """A ratio to three decimals: ``0.981``."""
    return dash if value is None else f"{value:.3f}"


def recorded(value: object) -> str:
    """A value as recorded: integers with separators, yes / no for a boolean, ``absent`` for none."""
    if isinstance(value, bool) or value is None:
        return {True: "yes", False: "no", None: "absent"}[value]
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return count(int(value))
    return str(value)
