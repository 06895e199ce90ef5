"""A decision's `tags` and `description` (decision.toml) land in its page's front matter, typed and escaped;
a bad one is bad input: one line naming decision.toml, its line and the key, exit 2, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.examples.reference import write_reference_decision

from .conftest import DECISION_ID, redacted_reference

pytestmark = pytest.mark.slow  # a real build

FRONT = """tags = ["kv-cache", "scout 2026"]
description = "Two A/B/A scouts & <b>one</b> decision"
"""


def _declare(raw: Path, front: str = FRONT) -> None:
    toml = raw / "decision.toml"
    toml.write_text(toml.read_text().replace('title = "', front + 'title = "', 1))


def test_tags_and_description_are_the_decision_pages_front_matter(run_cli, tmp_path: Path) -> None:
    bundle = redacted_reference(tmp_path / "bundle", edit=_declare)
    result = run_cli("build", bundle, "--out", tmp_path / "site")
    assert result.code == 0, result.err
    pages = tmp_path / "site" / "site" / "decisions" / DECISION_ID
    head = (pages / "index.md").read_text().split("\n---\n", 1)[0]
    assert head.splitlines()[2:] == [
        'description: "Two A/B/A scouts &amp; &lt;b&gt;one&lt;/b&gt; decision"',
        "tags:",
        '  - "kv-cache"',
        '  - "scout 2026"',
    ]
    # The decision's page alone: its other pages are not listed under its tags.
    others = [p for p in pages.glob("*.md") if p.name != "index.md"]
    assert others and not any("tags:" in p.read_text().split("\n---\n", 1)[0] for p in others)
    html = next((tmp_path / "site" / "public" / "decisions" / DECISION_ID).glob("index.html")).read_text()
    assert '<meta name="description" content="Two A/B/A scouts &amp; &lt;b&gt;one&lt;/b&gt; decision">' in html
    assert run_cli("verify", tmp_path / "site", "--allow-unpinned").code == 0


@pytest.mark.parametrize(
    ("front", "key"),
    [
        ('tags = ["cache <b>"]\n', "tags[0]"),
        ('tags = ["kv", "kv"]\n', "tags"),
        ('tags = "kv-cache"\n', "tags"),
        ('tags = ["' + "x" * 41 + '"]\n', "tags[0]"),
        ('description = ""\n', "description"),
    ],
)
def test_a_bad_tag_or_description_is_one_line_naming_decision_toml_and_the_key(run_cli, tmp_path: Path, front: str, key: str) -> None:
    raw = write_reference_decision(tmp_path / "raw")
    _declare(raw, front)
    for args in (["analyze", raw], ["build", raw, "--out", tmp_path / "site"]):
        result = run_cli(*args)
        assert result.code == 2, result.err
        assert result.err.count("\n") == 1 and "Traceback" not in result.err, result.err
        assert f"{raw / 'decision.toml'}:3: field '{key}'" in result.err, result.err
    assert not (tmp_path / "site").exists()
