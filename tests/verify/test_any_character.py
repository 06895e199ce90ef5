"""Any character: emoji and other characters outside the Basic Multilingual Plane, in every text field
of a decision and its trials, build, verify and render (a title holding one could not be built:
JSON's surrogate pair in mkdocs.yml reached MkDocs as two lone surrogates, a UnicodeEncodeError)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from evidence_kit.attest import generate_keypair
from evidence_kit.examples.reference import write_reference_decision
from evidence_kit.publish import build_site
from evidence_kit.redact import redact_bundle
from evidence_kit.render.escape import yaml_string

from ..resign import resign

pytestmark = pytest.mark.slow  # builds a real site

# An emoji, a mathematical letter, a CJK extension B ideograph and a flag (two regional indicators).
WIDE = "\U0001f680 \U0001d4d0 \U00020000 \U0001f1fa\U0001f1f3"


@pytest.mark.parametrize("value", [WIDE, f'"{WIDE}" \\ud83d \n\t', "plain ASCII", "caf\u00e9"])
def test_yaml_string_reads_back_as_the_same_text(value: str) -> None:
    text = yaml_string(value)
    assert text.isascii() and yaml.safe_load(text) == value


@pytest.fixture(scope="module")
def wide_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """A signed site whose decision title, narrative, setup, trial titles and arm labels hold ``WIDE``."""
    base = tmp_path_factory.mktemp("wide")
    raw = write_reference_decision(base / "raw")
    toml = (raw / "decision.toml").read_text("utf-8")
    toml = toml.replace("retain the current configuration", f"retain {WIDE}")
    toml = toml.replace("They are not measurements.", f"They are not measurements {WIDE}.")
    toml += f'\n[setup]\nengine = "sim {WIDE}"\n'
    (raw / "decision.toml").write_text(toml, "utf-8")
    for path in raw.glob("*/trial.json"):
        trial = json.loads(path.read_text("utf-8"))
        trial["title"] += f" {WIDE}"
        for arm in trial["arms"]:
            arm["label"] = f"{arm['label']} {WIDE}"
        path.write_text(json.dumps(trial, indent=2, ensure_ascii=False), "utf-8")
    decision = redact_bundle(raw, base / "decision", key=b"verify-tests-key-0123456789abcdef").out
    private, public, _ = generate_keypair(base / "keys")
    build_site([decision], base / "site", sign_key=private)
    return base / "site", public, private


def test_a_site_whose_every_text_field_holds_emoji_builds_and_verifies(run_cli, wide_site: tuple[Path, Path, Path]) -> None:
    site, public, _ = wide_site
    result = run_cli("verify", site, "--key", public)
    assert result.code == 0, result.out + result.err
    assert result.out.splitlines()[-1].startswith("verified: ") and "SKIP" not in result.out


def test_the_emoji_are_shown_on_the_pages_and_in_their_titles(wide_site: tuple[Path, Path, Path]) -> None:
    page = (wide_site[0] / "public" / "decisions" / "2026-11-01-reference-reconstruction" / "index.html").read_text("utf-8")
    title = re.search(r"<title>(.*?)</title>", page, re.S)
    assert title and WIDE in title.group(1)
    article = page.split("<article", 1)[1]
    for shown in (f"retain {WIDE}", f"They are not measurements {WIDE}.", f"sim {WIDE}"):
        assert shown in article, shown
    assert not re.search(r"[\ud800-\udfff]", page)  # never a lone surrogate


def test_an_edited_emoji_fails_the_figures(run_cli, wide_site: tuple[Path, Path, Path], tmp_path: Path) -> None:
    """The emoji are checked text like any other: another one in their place is a difference."""
    site = Path(shutil.copytree(wide_site[0], tmp_path / "site"))
    page = site / "public" / "decisions" / "2026-11-01-reference-reconstruction" / "index.html"
    page.write_text(page.read_text("utf-8").replace(f"not measurements {WIDE}", "not measurements \U0001f600", 1), "utf-8")
    resign(site / "public", wide_site[2])
    result = run_cli("verify", site / "public", "--key", wide_site[1])
    assert result.code == 1 and "FAIL figures" in result.out, result.out
