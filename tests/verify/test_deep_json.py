"""JSON nested deeper than the parser's stack, in a re-signed site's analysis, search index or chart spec, is a
problem of that file (`not JSON (...)`, naming it), never `the check itself crashed` without a file."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from ..resign import resign
from .test_site_tamper import DECISION, _failed

pytestmark = pytest.mark.slow  # the session builds a real site once

DEEP = "[" * 100_000 + "]" * 100_000


def _analysis(site: Path) -> str:
    path = site / DECISION / "analysis.json"
    path.write_text(path.read_text().rstrip()[:-1] + f', "deep": {DEEP}}}')
    return f"{DECISION}/analysis.json"


def _search_index(site: Path) -> str:
    path = site / "search" / "search_index.json"
    path.write_text(path.read_text().rstrip()[:-1] + f', "deep": {DEEP}}}')
    return "search/search_index.json"


def _chart_spec(site: Path) -> str:
    path = site / DECISION / "index.html"
    text = path.read_text()
    match = re.search(r'data-vl-spec="\{', text)
    assert match, path
    path.write_text(text[: match.end() - 1] + html.escape(f'{{"deep": {DEEP}, ', quote=True) + text[match.end() :])
    return f"{DECISION}/index.html"


@pytest.mark.parametrize("nest", [_analysis, _search_index, _chart_spec], ids=["analysis", "search-index", "chart-spec"])
def test_json_nested_too_deeply_is_a_problem_of_its_file(run_cli, site: Path, keypair, nest) -> None:
    rel = nest(site)
    resign(site, keypair[0])
    result = run_cli("verify", site, "--key", keypair[1])
    failed = _failed(result)
    assert result.code == 1 and "figures" in failed, result.out
    assert "crashed" not in result.out, result.out
    assert any(line.strip().startswith(f"{site / rel}") and "not JSON" in line for line in failed["figures"]), result.out
