"""History and freshness: each signed publication states its sequence and the digests of those before it;
``verify --since STATE`` refuses an older, forked or shortened site, and every report names the decisions it
verified and the publication's sequence."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from evidence_kit.attest.history import publication_digest
from evidence_kit.publish import build_site

from ..resign import resign

pytestmark = pytest.mark.slow

DECISION = "2026-11-01-reference-reconstruction"
NAMED = f"decisions verified: {DECISION} (2026-11-01, no-promotion)"


@pytest.fixture(scope="module")
def lineage(tmp_path_factory: pytest.TempPathFactory, redacted_master: Path, keypair) -> list[Path]:
    """Publications 1, 2 and 3 of one site (each built where the last one is), kept as copies."""
    out = tmp_path_factory.mktemp("lineage") / "site"
    kept = []
    for n in (1, 2, 3):
        build_site([redacted_master], out, sign_key=keypair[0])
        kept.append(Path(shutil.copytree(out / "public", out.parent / f"publication-{n}")))
    return kept


def _envelope_digest(public: Path) -> str:
    return publication_digest((public / "manifest.dsse.json").read_bytes())


def test_a_first_publication_says_so_and_names_its_decisions(run_cli, site_master: Path, keypair) -> None:
    result = run_cli("verify", site_master, "--key", keypair[1])
    assert result.code == 0, result.out
    assert re.search(rf"^PASS history +publication 1, the site's first; {re.escape(NAMED)}$", result.out, re.M), result.out
    report = json.loads(run_cli("verify", site_master, "--key", keypair[1], "--json").out)
    assert report["publication"]["history"] == {"sequence": 1, "replaces": None, "chain": []}
    assert report["publication"]["decisions"] == [{"id": DECISION, "date": "2026-11-01", "outcome": "no-promotion"}]


def test_each_publication_names_the_one_it_replaces(run_cli, lineage: list[Path], keypair) -> None:
    result = run_cli("verify", lineage[2], "--key", keypair[1], "--json")
    history = json.loads(result.out)["publication"]["history"]
    assert history == {"sequence": 3, "replaces": _envelope_digest(lineage[1]), "chain": [_envelope_digest(lineage[0]), _envelope_digest(lineage[1])]}


def test_since_a_state_file_accepts_a_later_publication_and_refuses_an_older_one(run_cli, lineage: list[Path], keypair, tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    assert run_cli("verify", lineage[1], "--key", keypair[1], "--save-state", state).code == 0
    assert json.loads(state.read_text())["sequence"] == 2
    later = run_cli("verify", lineage[2], "--key", keypair[1], "--since", state)
    assert later.code == 0 and re.search(r"^PASS history +follows --since publication 2 ", later.out, re.M), later.out
    same = run_cli("verify", lineage[1], "--key", keypair[1], "--since", state)
    assert same.code == 0 and "the same publication as --since" in same.out
    older = run_cli("verify", lineage[0], "--key", keypair[1], "--since", state)
    assert older.code == 1 and re.search(r"^FAIL history", older.out, re.M)
    assert "older: this is publication 1, and publication 2 (sha256:" in older.out


def test_since_a_digest_refuses_a_site_whose_history_does_not_hold_it(run_cli, lineage: list[Path], site_master: Path, keypair) -> None:
    digest = _envelope_digest(lineage[0])
    assert run_cli("verify", lineage[2], "--key", keypair[1], "--since", digest).code == 0
    forked = run_cli("verify", site_master, "--key", keypair[1], "--since", _envelope_digest(lineage[1]))
    assert forked.code == 1 and "is not in this publication's history: an older, forked or shortened site" in forked.out


def test_a_fork_at_the_sequence_seen_is_refused(run_cli, lineage: list[Path], site_master: Path, keypair, tmp_path: Path) -> None:
    """Another lineage, whose publication 1 (signed by the same key, with other claims) is not the one seen."""
    other = tmp_path / "other"
    shutil.copytree(site_master, other)
    resign(other / "public", keypair[0], toolchain={"mkdocs": "0.0.1"})
    build_site([site_master / "public" / "decisions" / DECISION / "evidence"], other, sign_key=keypair[0])
    state = tmp_path / "state.json"
    state.write_text(
        json.dumps(
            {
                "schema": "evidence-kit/verify-state/v1",
                "publication": _envelope_digest(lineage[0]),
                "sequence": 1,
                "decisions": [DECISION],
                "key_id": None,
            }
        )
    )
    result = run_cli("verify", other / "public", "--key", keypair[1], "--since", state)
    assert result.code == 1 and "forked: publication 1 of this site's history is sha256:" in result.out, result.out


def test_a_site_missing_a_decision_seen_is_shortened(run_cli, lineage: list[Path], keypair, tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    assert run_cli("verify", lineage[1], "--key", keypair[1], "--save-state", state).code == 0
    doc = json.loads(state.read_text())
    doc["decisions"].append("2026-10-01-retracted-decision")
    state.write_text(json.dumps(doc))
    result = run_cli("verify", lineage[2], "--key", keypair[1], "--since", state)
    assert result.code == 1 and "shortened: decision(s) 2026-10-01-retracted-decision of publication 2" in result.out


@pytest.mark.parametrize("given, why", [("sha256:abc", "cannot read the state file"), ("{}", "not a state file")])
def test_a_bad_since_is_one_line_exit_2(run_cli, site_master: Path, keypair, tmp_path: Path, given: str, why: str) -> None:
    if given == "{}":
        (tmp_path / "state.json").write_text(given)
        given = str(tmp_path / "state.json")
    result = run_cli("verify", site_master, "--key", keypair[1], "--since", given)
    assert result.code == 2 and result.err.count("\n") == 1 and why in result.err, result.err
