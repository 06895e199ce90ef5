"""What the import tests share: running `evidence-kit import`, a refused file, and the whole chain after it."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.cli import main


def run_import(tmp_path: Path, files: dict[str, list[Path]], *extra: str) -> int:
    """`evidence-kit import` of ``files`` (phase -> one file per repetition) into ``tmp_path/raw``."""
    args = ["import"] + [a for phase, paths in files.items() for p in paths for a in (f"--{phase}", str(p))]
    return main([*args, "--out", str(tmp_path / "raw"), *extra])


def refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: Path, files: dict[str, list[Path]]) -> str:
    """Import ``files`` (holding ``bad``): exit 2, nothing written, one line on stderr naming ``bad``."""
    capsys.readouterr()
    assert run_import(tmp_path, files) == 2
    assert not (tmp_path / "raw").exists()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and str(bad) in err
    return err


def redact_build_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """redact -> keygen -> build --sign -> verify --key on ``tmp_path/raw``, each exit 0; returns the site."""
    evidence, site, private = tmp_path / "evidence", tmp_path / "site", tmp_path / "private.json"
    assert main(["redact", str(tmp_path / "raw"), "--out", str(evidence), "--map", str(private)]) == 0
    assert main(["keygen", "--out", str(tmp_path / "key")]) == 0
    assert main(["build", str(evidence), "--out", str(site), "--sign", str(tmp_path / "key" / "signing.key"), "--known-values", str(private)]) == 0
    capsys.readouterr()
    assert main(["verify", str(site), "--key", str(tmp_path / "key" / "signing.pub")]) == 0
    return site


def refused_candidate(tmp_path: Path, capsys: pytest.CaptureFixture[str], samples: Path, ext: str, data: bytes, name: str = "") -> str:
    """``data`` as the candidate file between the real before and restored samples: refused (as :func:`refused`)."""
    bad = tmp_path / (name or f"bad.{ext}")
    bad.write_bytes(data)
    files = {"before": [samples / f"before.{ext}"], "candidate": [bad], "restored": [samples / f"restored.{ext}"]}
    return refused(tmp_path, capsys, bad, files)


def decision_page(site: Path) -> str:
    """The HTML of the built site's decision page."""
    return next(p for p in (site / "public").rglob("index.html") if "decisions" in p.parts).read_text()
