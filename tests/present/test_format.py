"""How figures are written: one convention for the terminal, the pages and the auditor."""

from __future__ import annotations

from evidence_kit.present.format import count, faster_slower, percent, seconds, signed_percent, tokens


def test_seconds_keep_three_significant_digits() -> None:
    assert [seconds(v) for v in (11.355, 1.735, 0.412, 0.0512, 0.007, None)] == ["11.355", "1.735", "0.412", "0.0512", "0.00700", "\u2014"]


def test_percent_words_and_signs() -> None:
    assert faster_slower(9.2382) == "9.24% slower" and faster_slower(-14.5514) == "14.55% faster"
    assert faster_slower(0.001) == "no different (0.00%)" and faster_slower(None) == "not comparable"
    assert signed_percent(38.5985) == "+38.60%" and signed_percent(-40.6346) == "\u221240.63%"
    assert percent(-1.956) == "1.96%"


def test_counts_and_tokens() -> None:
    assert count(1330579) == "1,330,579" and tokens(403.5) == "403.5" and tokens(812.0) == "812"
