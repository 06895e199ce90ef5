"""What an interactive chart shows beyond its data: a re-signed page whose chart spec adds a title, a text mark
or a transform draws words and figures the evidence does not support, and only the chart's ``datasets`` and
colour scales are compared once the rebuild is skipped (a site recording another toolchain, which the key
holder writes). docs/verify.md says a publisher editing what a page shows and re-signing fails ``figures``.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from evidence_kit.render.toolchain import installed_toolchain

from ..resign import resign
from .test_site_tamper import DECISION, _failed

pytestmark = pytest.mark.slow  # the session builds a real site once

SPEC = re.compile(r'data-vl-spec="([^"]*)"')


def _edit_first_spec(page: Path, edit) -> None:
    text = page.read_text()
    match = SPEC.search(text)
    assert match, page
    spec = json.loads(html.unescape(match.group(1)))
    edit(spec)
    page.write_text(text[: match.start(1)] + html.escape(json.dumps(spec), quote=True) + text[match.end(1) :])


def _title(spec: dict) -> None:
    spec["title"] = "Candidate 40% faster in every group: PROMOTE"


def _halve(spec: dict) -> None:
    """Every layer draws half of each value it reads from the data: the data rows stay the evidence's."""
    for layer in spec.get("layer", [spec]):
        fields = {e.get("field") for e in layer.get("encoding", {}).values() if isinstance(e, dict) and e.get("type") == "quantitative"}
        layer["transform"] = [{"calculate": f"datum['{f}'] * 0.5", "as": f} for f in sorted(f for f in fields if f)] + layer.get("transform", [])


@pytest.mark.parametrize("edit", [_title, _halve], ids=["title-with-a-figure", "transform-halving-the-values"])
def test_a_resigned_chart_showing_other_figures_fails(run_cli, site: Path, keypair, edit) -> None:
    _edit_first_spec(site / DECISION / "index.html", edit)
    resign(site, keypair[0], toolchain={**installed_toolchain(), "mkdocs-material": "9.0.0"})
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 1 and "figures" in _failed(result), result.out
