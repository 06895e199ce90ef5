"""The site's leak scan passes over exact copies of third-party files, and only those."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.errors import CheckFailed
from evidence_kit.publish.safety import public_copies, scan_site
from evidence_kit.redact import KnownValue
from evidence_kit.render.charts import vendored_script


def test_a_two_letter_host_in_minified_vega_is_no_finding_but_in_an_edited_copy_it_is(tmp_path: Path) -> None:
    bundle = vendored_script()
    assert b"vm" in bundle  # the word the demo's host name (`vm`) happens to be
    site = tmp_path / "public"
    (site / "assets").mkdir(parents=True)
    (site / "assets" / "vega-bundle.js").write_bytes(bundle)
    (site / "index.html").write_text("<p>ok</p>\n")
    assert public_copies(site) == ["assets/vega-bundle.js"]
    scan_site([site], [KnownValue("host", "vm")], shown_as=tmp_path / "out")  # no finding
    (site / "assets" / "vega-bundle.js").write_bytes(bundle + b"/* built on vm */\n")
    assert public_copies(site) == []
    with pytest.raises(CheckFailed, match="host"):
        scan_site([site], [KnownValue("host", "vm")], shown_as=tmp_path / "out")
