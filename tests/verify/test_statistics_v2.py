"""Statistics v2 on a signed site: every new figure (verdicts and their counts, guardrails, the detectable
change, tail and request-level intervals, control drift, the threshold lines) is recomputed by ``verify``.

Each case edits one figure where a publisher would (``analysis.json``, a page's text, a chart's data),
re-signs the site with the publisher's own key so every hash check passes, and expects ``figures`` to fail
naming what was edited, published and recomputed.
"""

from __future__ import annotations

import html as html_lib
import json
import re
import shutil
from pathlib import Path

import pytest

from evidence_kit.publish import build_site
from evidence_kit.redact import redact_bundle

from ..guarded import GUARDED_ID, write_guarded_decision
from ..resign import resign
from .test_site_tamper import DECISION, _failed, _verify
from .test_toolchain import _resign

pytestmark = pytest.mark.slow  # each case runs the whole verify of a real site

GUARDED = f"decisions/{GUARDED_ID}"


def _get(doc: object, path: str) -> object:
    for part in re.findall(r"[^.\[\]]+", path):
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]  # type: ignore[index]
    return doc


def _put(doc: object, path: str, value: object) -> None:
    *parents, last = re.findall(r"[^.\[\]]+", path)
    holder = _get(doc, ".".join(parents))
    holder[int(last) if isinstance(holder, list) else last] = value  # type: ignore[index]


# Words a publisher might put in place of the recomputed ones (each a value the schema allows).
OTHER_WORD = {"inconclusive": "win", "regression": "no-win", "controls-disagree": "clears-both", "point": "significant", "no-promotion": "promote"}


def _edited(value: object) -> object:
    """Another value of the same kind: a verdict word, a flipped boolean, a nudged number, another sentence."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, str):
        return OTHER_WORD.get(value, "nothing blocks promotion")
    assert isinstance(value, (int, float)), value
    return value + 1 if isinstance(value, int) else value + 0.01


def _edit_analysis_and_resign(site: Path, decision: str, path: str, key: Path) -> tuple[object, object]:
    """Edit one field of the decision's analysis.json, re-sign; return (published, recomputed)."""
    target = site / decision / "analysis.json"
    doc = json.loads(target.read_text())
    recomputed = _get(doc, path)
    published = _edited(recomputed)
    _put(doc, path, published)
    target.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    resign(site, key)
    return published, recomputed


def _show(value: object) -> str:
    """A value as the report shows it: text as it is, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value)


def _only_figures(run_cli, site: Path, keypair) -> list[str]:
    result = _verify(run_cli, site, "--key", keypair[1])
    failed = _failed(result)
    assert result.code == 1 and set(failed) == {"figures"}, result.out
    return failed["figures"]


def _edited_field_is_named(run_cli, site: Path, decision: str, path: str, keypair) -> None:
    """Edit ``path`` of the decision's analysis.json and re-sign: ``figures`` alone fails, naming exactly that field."""
    published, recomputed = _edit_analysis_and_resign(site, decision, path, keypair[0])
    assert _only_figures(run_cli, site, keypair) == [
        f"{site / decision / 'analysis.json'}: {path}: published {_show(published)}, recomputed {_show(recomputed)}"
    ]


@pytest.mark.parametrize(
    "path",
    [
        "trials[0].groups[1].verdict.verdict",  # inconclusive (the controls disagree)
        "trials[0].groups[1].verdict.reason",
        "trials[0].groups[3].verdict.verdict",  # regression
        "trials[1].groups[0].verdict.within_noise",
        "trials[0].groups[1].verdict.control_drift_pct",  # drift
        "trials[0].groups[1].verdict.drift_flagged",
        "trials[0].verdicts.win",  # the counts
        "trials[0].verdicts.regression",
        "trials[0].groups[0].detectable_pct",
        "trials[0].groups[0].tail_intervals[0].high",  # p90 against the first control
        "trials[0].groups[3].tail_intervals[3].low",  # p99 against the restored control
        "trials[0].groups[0].request_intervals[1].low",
        "trials[0].rule.threshold_low_ratio",
        "trials[0].rule.confidence",
    ],
)
def test_each_new_figure_of_the_analysis_is_recomputed(run_cli, site: Path, keypair, path: str) -> None:
    _edited_field_is_named(run_cli, site, DECISION, path, keypair)


def _edit_page_and_resign(site: Path, rel: str, old: str, new: str, key: Path) -> Path:
    page = site / rel
    text = page.read_text()
    assert old in text, old
    page.write_text(text.replace(old, new, 1))
    resign(site, key)
    return page


def test_a_verdict_word_edited_in_the_comparison_table_is_caught(run_cli, site: Path, keypair) -> None:
    page = _edit_page_and_resign(site, f"{DECISION}/index.html", "<td>9.02%</td>\n<td>regression</td>", "<td>9.02%</td>\n<td>no-win</td>", keypair[0])
    lines = _only_figures(run_cli, site, keypair)
    assert any(line.startswith(f"{page}:") and "published no-win, recomputed regression" in line for line in lines), lines


def test_a_smallest_resolvable_change_edited_in_a_sentence_is_caught(run_cli, site: Path, keypair) -> None:
    page = _edit_page_and_resign(site, f"{DECISION}/index.html", "differences under 8.65% (~6K/C1)", "differences under 4.61% (~6K/C1)", keypair[0])
    lines = _only_figures(run_cli, site, keypair)
    assert any(line.startswith(f"{page}:") and "published 4.61%, recomputed 8.65%" in line for line in lines), lines


def test_a_tail_interval_edited_in_its_table_is_caught(run_cli, site: Path, keypair) -> None:
    page = _edit_page_and_resign(site, f"{DECISION}/index.html", "<td>1.025–1.165</td>", "<td>0.925–1.165</td>", keypair[0])
    lines = _only_figures(run_cli, site, keypair)
    assert any(line.startswith(f"{page}:") and "published 0.925" in line for line in lines), lines


def _chart_spec(page: Path) -> tuple[str, dict]:
    """The escaped data-vl-spec attribute of the page's first interval chart, and the spec it holds."""
    attribute = next(m.group(1) for m in re.finditer(r'data-vl-spec="([^"]*)"', page.read_text()) if "intervals-" in m.group(1))
    return attribute, json.loads(html_lib.unescape(attribute))


def _respec(site: Path, key: Path, edit) -> Path:
    page = site / DECISION / "index.html"
    attribute, spec = _chart_spec(page)
    edit(spec)
    escaped = html_lib.escape(json.dumps(spec, sort_keys=True, separators=(",", ":")), quote=True)
    page.write_text(page.read_text().replace(attribute, escaped, 1))
    resign(site, key)
    return page


def test_a_point_recoloured_by_its_verdict_in_the_chart_data_is_caught(run_cli, site: Path, keypair) -> None:
    def relabel(spec: dict) -> None:
        rows = next(rows for rows in spec["datasets"].values() if "verdict" in rows[0])
        assert rows[-1]["verdict"] == "regression"
        rows[-1]["verdict"] = "win"

    page = _respec(site, keypair[0], relabel)
    lines = _only_figures(run_cli, site, keypair)
    assert any(line.startswith(f"{page}:") and ".verdict: published win, recomputed regression" in line for line in lines), lines


def test_a_threshold_line_moved_in_the_chart_is_caught(run_cli, site: Path, keypair) -> None:
    def move(spec: dict) -> None:
        rows = next(rows for rows in spec["datasets"].values() if "line" in rows[0])
        assert rows[0]["ratio"] == 0.9
        rows[0]["ratio"] = 0.95

    page = _respec(site, keypair[0], move)
    lines = _only_figures(run_cli, site, keypair)
    assert any(line.startswith(f"{page}:") and ".ratio: published 0.95, recomputed 0.9" in line for line in lines), lines


@pytest.mark.parametrize("toolchain", ["installed", "another"])
def test_the_verdict_colours_swapped_in_the_chart_are_caught(run_cli, site: Path, keypair, toolchain: str) -> None:
    """The colour is the verdict: a scale that draws a regression in the win's colour shows another verdict.
    Caught by ``figures`` whatever is installed: under another recorded toolchain (the rebuild skipped) this
    passed before the chart's spec was compared, and is named at each scale it changes."""

    def swap(spec: dict) -> None:
        text = json.dumps(spec)
        assert text.count('"#D55E00"') == text.count('"#009E73"') > 0
        spec.clear()
        spec.update(json.loads(text.replace('"#D55E00"', '"#TMP"').replace('"#009E73"', '"#D55E00"').replace('"#TMP"', '"#009E73"')))

    page = _respec(site, keypair[0], swap)
    if toolchain == "another":
        _resign(site, keypair[0])  # records a Material the auditor does not have: only the text and data are compared
    lines = _only_figures(run_cli, site, keypair)
    assert any(line.startswith(f"{page}: chart ") and ".scale.range[0]: published #D55E00, recomputed #009E73" in line for line in lines), lines


@pytest.fixture(scope="module")
def guarded_master(tmp_path_factory: pytest.TempPathFactory, keypair) -> Path:
    """The guarded decision (a win a guardrail blocks), redacted, built and signed like any site."""
    base = tmp_path_factory.mktemp("guarded")
    raw = write_guarded_decision(base / "raw")
    decision = redact_bundle(raw, base / "decision", key=b"verify-tests-key-0123456789abcdef").out
    build_site([decision], base / "site", sign_key=keypair[0])
    return base / "site" / "public"


@pytest.fixture
def guarded(tmp_path: Path, guarded_master: Path) -> Path:
    return Path(shutil.copytree(guarded_master, tmp_path / "public", symlinks=True))


def test_the_guarded_site_verifies_and_says_which_guardrail_blocks(run_cli, guarded: Path, keypair) -> None:
    result = _verify(run_cli, guarded, "--key", keypair[1])
    assert result.code == 0, result.out
    text = (guarded / GUARDED / "index.html").read_text()
    assert "Cannot promote: guardrails breached at" in text
    assert "<td>p90 time to first token must not regress by more than 10%</td>" in text
    assert "<td>BREACHED</td>" in text and "<td>held</td>" in text


@pytest.mark.parametrize(
    "path",
    [
        "trials[0].groups[0].guardrails[1].breached",
        "trials[0].groups[0].guardrails[1].within_noise",
        "trials[0].groups[1].guardrails[0].change_vs_restored_pct",
        "trials[0].groups[1].guardrails[0].intervals[0].high",
        "trials[0].groups[0].verdict.guardrails_held",
        "trials[0].rule.guardrails[0].bound_pct",
        "trials[0].wins",
        "trials[0].outcome",
        "trials[0].blocked_by[0]",
    ],
)
def test_each_guardrail_figure_is_recomputed(run_cli, guarded: Path, keypair, path: str) -> None:
    _edited_field_is_named(run_cli, guarded, GUARDED, path, keypair)


def test_a_breached_guardrail_shown_as_held_is_caught(run_cli, guarded: Path, keypair) -> None:
    page = _edit_page_and_resign(guarded, f"{GUARDED}/index.html", "<td>BREACHED</td>", "<td>held</td>", keypair[0])
    lines = _only_figures(run_cli, guarded, keypair)
    assert any(line.startswith(f"{page}:") and "published held, recomputed BREACHED" in line for line in lines), lines
