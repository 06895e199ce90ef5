"""A page that sends its reader elsewhere before they read it: ``<meta http-equiv="refresh" content="0;
url=…">`` in the head, added by a key holder who signs again recording another toolchain (no rebuild backs
the head). The reader sees another page than the one compared, so it fails ``figures`` (the markup check),
with any toolchain, in a built site and in a host site's decision pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.render.toolchain import installed_toolchain
from evidence_kit.verify.page_text import markup_mismatches, read_page

from ..resign import resign
from .test_site_tamper import DECISION, _failed

REFRESH = '<meta http-equiv="refresh" content="0; url=https://example.com/promoted.html">'


@pytest.mark.slow  # a real site
def test_a_page_refreshing_to_another_fails_without_a_rebuild(run_cli, site: Path, keypair) -> None:
    page = site / DECISION / "index.html"
    page.write_text(page.read_text().replace("</head>", REFRESH + "</head>", 1))
    resign(site, keypair[0], toolchain={**installed_toolchain(), "mkdocs-material": "9.0.0"})
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 1 and any('http-equiv="refresh"' in line for line in _failed(result)["figures"]), result.out


@pytest.mark.parametrize("host", [False, True])
def test_a_refresh_is_markup_build_never_writes(host: bool) -> None:
    page = read_page(
        f"<html><head>{REFRESH.upper().replace('HTTPS://EXAMPLE.COM/PROMOTED.HTML', 'x')}</head><body><article><p>a</p></article></body></html>"
    )
    assert any('http-equiv="refresh"' in shown for _, shown, _ in markup_mismatches(page, host=host))
