"""The site's known-value scan passes over exact copies of third-party files, and only those."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.errors import CheckFailed
from evidence_kit.publish.safety import public_copies, scan_site
from evidence_kit.redact import KnownValue
from evidence_kit.render.charts import vendored_script


def test_a_host_in_the_minified_vega_bundle_is_no_finding_but_in_an_edited_copy_it_is(tmp_path: Path) -> None:
    bundle = vendored_script()
    word = "a1ae017e"  # a run of the minified library's own text, which no guard keeps out of the hunt
    assert word.encode() in bundle
    host = KnownValue("host", f"{word}.lab.internal")  # its short name is hunted, and the library holds it
    site = tmp_path / "public"
    (site / "assets").mkdir(parents=True)
    (site / "assets" / "vega-bundle.js").write_bytes(bundle + b"")
    (site / "index.html").write_text("<p>ok</p>\n")
    assert public_copies(site) == ["assets/vega-bundle.js"]
    scan_site([site], [host], shown_as=tmp_path / "out")  # no finding
    (site / "assets" / "vega-bundle.js").write_bytes(bundle + f"/* built on {word}.lab.internal */\n".encode())
    assert public_copies(site) == []
    with pytest.raises(CheckFailed, match="host"):
        scan_site([site], [host], shown_as=tmp_path / "out")


def test_a_two_letter_host_is_never_hunted(tmp_path: Path) -> None:
    # Too short to tell from ordinary text (the guard too-short): pseudonymised in its own field, never hunted.
    (tmp_path / "index.html").write_text("<p>built on vm</p>\n")
    scan_site([tmp_path], [KnownValue("host", "vm")], shown_as=tmp_path / "out")
