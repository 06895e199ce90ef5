"""Which chart a page shows is where its ``<img src>`` points: a reader without scripts sees that SVG, under
the heading and alt text of the chart it should be. A key holder who swaps two trials' interval charts on the
decision page and signs again, recording another toolchain (no rebuild), shows one trial's verdicts as the
other's; the SVGs themselves are genuine, so only the page's image sources can tell."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.render.toolchain import installed_toolchain

from ..resign import resign
from .test_site_tamper import DECISION, _failed

pytestmark = pytest.mark.slow  # a real site

A, B = 'src="cache-layout/intervals.svg"', 'src="dflash/intervals.svg"'


def test_two_charts_swapped_on_a_page_fail_without_a_rebuild(run_cli, site: Path, keypair) -> None:
    page = site / DECISION / "index.html"
    text = page.read_text()
    assert A in text and B in text
    page.write_text(text.replace(A, "\0").replace(B, A).replace("\0", B))
    resign(site, keypair[0], toolchain={**installed_toolchain(), "mkdocs-material": "9.0.0"})
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 1, result.out
    assert any("intervals.svg" in line for line in _failed(result)["figures"]), result.out
