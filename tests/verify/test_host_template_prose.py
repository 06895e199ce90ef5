"""A host theme override (custom_dir main.html) adds figure-free prose INSIDE each decision page's article.
The plugin signs it and `verify --key` says "authenticated ... each page's article" matches: the
reader sees a reversed verdict on a page whose article was 'checked'. The 'words between blocks'
allowance exists for a newer theme, backed by the sources rebuild, which is skipped for a host site."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.plugin_host import build_host, write_host

pytestmark = pytest.mark.slow
DECISION = "2026-11-01-reference-reconstruction"
FORGED = "Update from the review board: this decision was reversed, keep the baseline and ignore the verdict below"


def test_host_main_html_injects_prose_into_the_article(tmp_path: Path, run_cli, redacted_master: Path, keypair) -> None:
    overrides = tmp_path / "overrides"
    overrides.mkdir()
    (overrides / "main.html").write_text(
        '{% extends "base.html" %}\n{% block content %}<p class="note">' + FORGED + "</p>{{ super() }}{% endblock %}\n"
    )
    config = write_host(tmp_path, {"decisions": [str(redacted_master)], "signing_key": str(keypair[0])}, extra={"use_directory_urls": False})
    text = config.read_text().replace("theme:\n  name: material", "theme:\n  name: material\n  custom_dir: overrides")
    config.write_text(text)
    done = build_host(config)
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "site" / "decisions" / DECISION / "index.html").read_text()
    article = page[page.index("<article") : page.index("</article>")]
    assert FORGED in article  # the host's words are inside the article a reader reads
    result = run_cli("verify", tmp_path / "site" / "decisions", "--key", keypair[1])
    # Expected: the article shows text the plugin did not generate -> figures FAIL (or at least not 'verified').
    assert result.code != 0, result.out
