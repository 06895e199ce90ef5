"""What a chart shows a reader is derived from the evidence, whatever the signed toolchain record says: the SVG a
reader without scripts sees, the vendored Vega scripts that draw every spec, and each spec itself, in a built site
and in a host MkDocs site, where no rebuild backs the pages. A key holder who records another toolchain skips the
rebuild; before, these files were then compared by nothing (and a host site's SVGs never were)."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import pytest

from evidence_kit.render.toolchain import installed_toolchain

from ..resign import resign
from .test_chart_spec_shown import SPEC, _edit_first_spec, _title
from .test_site_tamper import DECISION, _failed

pytestmark = pytest.mark.slow  # real site and host builds

OTHER_THEME = {"mkdocs-material": "9.0.0"}  # a record that skips the rebuild
PLOT = '<text x="1" y="1">Candidate 40% faster: PROMOTE</text></svg>'


def _svg_with_other_words(svg: Path) -> None:
    svg.write_text(svg.read_text().replace("</svg>", PLOT))


def _other(**versions: str) -> dict[str, str]:
    return {**installed_toolchain(), **versions}


def test_a_resigned_chart_svg_fails_whatever_toolchain_is_recorded(run_cli, site: Path, keypair) -> None:
    svg = sorted((site / DECISION).rglob("*.svg"))[0]
    _svg_with_other_words(svg)
    resign(site, keypair[0], toolchain=_other(**OTHER_THEME))
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 1, result.out
    assert any(svg.relative_to(site).as_posix() in line and "(chart bytes)" in line for line in _failed(result)["figures"]), result.out


def test_resigned_vega_scripts_fail_whatever_toolchain_is_recorded(run_cli, site: Path, keypair) -> None:
    bundle = site / "assets" / "vega-bundle.js"
    bundle.write_bytes(bundle.read_bytes() + b"\nwindow.vegaEmbed = function () { return Promise.resolve(); };\n")
    resign(site, keypair[0], toolchain=_other(**OTHER_THEME))
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 1 and any("assets/vega-bundle.js" in line for line in _failed(result)["figures"]), result.out


def test_an_edited_spec_recorded_with_another_altair_is_not_proven(run_cli, site: Path, keypair) -> None:
    _edit_first_spec(site / DECISION / "index.html", _title)
    resign(site, keypair[0], toolchain=_other(altair="5.0.0"))
    result = run_cli("verify", site, "--key", keypair[1])
    figures = _failed(result)["figures"]
    assert result.code == 1 and any("chart 1 spec title" in line for line in figures), result.out
    assert any(f"charts not proven: built with altair 5.0.0, installed {installed_toolchain()['altair']}" in line for line in figures)


def test_a_genuine_chart_is_proven_whatever_altair_is_recorded(run_cli, site: Path, keypair) -> None:
    """The derived spec is the published one: nothing is left to a version's defaults, so the record does not matter."""
    resign(site, keypair[0], toolchain=_other(altair="5.0.0"))
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 0 and re.search(r"^PASS figures", result.out, re.M), result.out


@pytest.fixture
def host(tmp_path: Path, host_master: Path) -> Path:
    return Path(shutil.copytree(host_master, tmp_path / "decisions"))


def test_a_resigned_chart_svg_fails_in_a_host_site(run_cli, host: Path, keypair) -> None:
    svg = sorted(host.rglob("*.svg"))[0]
    _svg_with_other_words(svg)
    resign(host, keypair[0])
    result = run_cli("verify", host, "--key", keypair[1])
    assert result.code == 1 and any("(chart bytes)" in line for line in _failed(result)["figures"]), result.out


def test_a_chart_outside_the_article_of_a_host_page_fails(run_cli, host: Path, keypair) -> None:
    """charts.js draws every ``div.ek-vega[data-vl-spec]`` of a page, and only the article's specs are compared."""
    page = next(p for p in sorted(host.rglob("index.html")) if SPEC.search(p.read_text()))
    text = page.read_text()
    spec = json.loads(html.unescape(SPEC.search(text).group(1)))
    _title(spec)
    extra = f'<div class="ek-vega" data-vl-spec="{html.escape(json.dumps(spec), quote=True)}"></div>'
    page.write_text(text.replace("</article>", "</article>" + extra, 1))
    resign(host, keypair[0])
    result = run_cli("verify", host, "--key", keypair[1])
    assert result.code == 1 and any("<div data-vl-spec>" in line for line in _failed(result)["figures"]), result.out
