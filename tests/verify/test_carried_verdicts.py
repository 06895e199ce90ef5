"""Every verdict and count a page states is carried in analysis.json, so ``verify`` checks it.

A publisher who edits one of them in ``analysis.json`` and re-signs the site with its own key
passes every hash check; the figures check recomputes the analysis from the journals and names
the field that differs.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evidence_kit.examples.reference import write_reference_decision
from evidence_kit.publish import build_site
from evidence_kit.redact import redact_bundle

from ..resign import resign
from .test_site_tamper import DECISION, _failed, _verify

pytestmark = pytest.mark.slow  # each case runs the whole verify of a real site

# The fields the pages show and the analysis carries (docs/analysis.md), as the reference has them.
CARRIED = {
    "decision.simulated": True,
    "decision.timed_ok": 288,
    "decision.timed_planned": 288,
    "decision.pooled_n_min": 12,
    "decision.pooled_n_max": 12,
    "decision.restored_ok": True,
    "trials[0].timed_failed": 0,
    "trials[0].groups_total": 4,
    "trials[0].pooled_n_min": 12,
    "trials[0].pooled_n_max": 12,
    "trials[0].restored_ok": True,
}


def _set(doc: dict, field: str, value: object) -> object:
    """Set ``decision.x`` or ``trials[i].x`` in an analysis document; return the value it had."""
    part, name = field.split(".")
    holder = doc["decision"] if part == "decision" else doc["trials"][int(part[len("trials[") : -1])]
    old, holder[name] = holder[name], value
    return old


def _resign_with(site: Path, private_key: Path, edit) -> None:
    path = site / DECISION / "analysis.json"
    doc = json.loads(path.read_text())
    edit(doc)
    path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    resign(site, private_key)


def _show(value: object) -> str:
    return json.dumps(value)


@pytest.mark.parametrize("field", sorted(CARRIED))
def test_each_carried_verdict_is_recomputed(run_cli, site: Path, keypair, field: str) -> None:
    recomputed = CARRIED[field]
    published = (not recomputed) if isinstance(recomputed, bool) else recomputed + 1
    _resign_with(site, keypair[0], lambda doc: _set(doc, field, published))
    result = _verify(run_cli, site, "--key", keypair[1])
    failed = _failed(result)
    assert result.code == 1 and set(failed) == {"figures"}, result.out
    assert failed["figures"] == [f"{site / DECISION / 'analysis.json'}: {field}: published {_show(published)}, recomputed {_show(recomputed)}"], (
        result.out
    )


@pytest.fixture(scope="module")
def unrestored_site(tmp_path_factory: pytest.TempPathFactory, keypair) -> Path:
    """The reference decision whose DFlash restored arm reports other KV token slots than the original:
    the evidence says that trial's restoration did not hold. Built and signed like any site."""
    base = tmp_path_factory.mktemp("unrestored")
    raw = write_reference_decision(base / "raw")
    journal = raw / "dflash" / "journals" / "03-original-restored.jsonl"
    header, *rest = journal.read_text().splitlines()
    record = json.loads(header)
    record["engine"]["kv_token_slots"] -= 1
    journal.write_text("\n".join([json.dumps(record), *rest]) + "\n")
    decision = redact_bundle(raw, base / "decision", key=b"verify-tests-key-0123456789abcdef").out
    out = base / "site"
    build_site([decision], out)
    resign(out / "public", keypair[0])
    return out / "public"


def test_a_restoration_the_evidence_does_not_show_cannot_be_published_as_held(run_cli, unrestored_site: Path, keypair, tmp_path: Path) -> None:
    site = Path(shutil.copytree(unrestored_site, tmp_path / "public"))
    assert _verify(run_cli, site, "--key", keypair[1]).code == 0  # as built: restoration not shown, and verified
    page = site / DECISION / "index.html"
    html = page.read_text()
    # One result card per trial: the second trial's says its restoration is not shown.
    assert html.count("<td>Original configuration restored</td>\n<td>not shown by the evidence</td>") == 1
    assert "restoration NOT shown" in html
    page.write_text(
        html.replace(
            "<td>Original configuration restored</td>\n<td>not shown by the evidence</td>", "<td>Original configuration restored</td>\n<td>yes</td>"
        )
    )

    def claim_restored(doc: dict) -> None:
        assert _set(doc, "decision.restored_ok", True) is False
        assert _set(doc, "trials[1].restored_ok", True) is False

    _resign_with(site, keypair[0], claim_restored)
    failed = _failed(_verify(run_cli, site, "--key", keypair[1]))
    assert set(failed) == {"figures"}, failed
    lines = failed["figures"]
    analysis = site / DECISION / "analysis.json"
    assert f"{analysis}: decision.restored_ok: published true, recomputed false" in lines
    assert f"{analysis}: trials[1].restored_ok: published true, recomputed false" in lines
    assert any(line.startswith(f"{page}") and "not shown by the evidence" in line for line in lines), lines
