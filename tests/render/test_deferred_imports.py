"""Altair, pandas and vl-convert are imported when a chart is drawn, not when the site code is imported.

They cost about a second of imports; the MkDocs plugin's configuration, ``verify`` and a rebuild read back
from the plugin's cache draw no chart and must not pay it.
"""

from __future__ import annotations

from pathlib import Path

from evidence_kit.examples.reference import write_reference_decision
from tests.loaded_modules import loaded_after

HEAVY = ("altair", "pandas", "vl_convert")


def test_importing_the_plugin_the_verifier_and_the_builder_loads_no_chart_library() -> None:
    assert loaded_after("import evidence_kit.mkdocs_plugin, evidence_kit.verify, evidence_kit.publish, evidence_kit.cli", HEAVY) == []


def test_rendering_a_decision_loads_them(tmp_path: Path) -> None:
    folder = write_reference_decision(tmp_path / "raw")
    code = (
        "from pathlib import Path\n"
        "from evidence_kit.mkdocs_plugin import _render\n"
        f"files = _render([Path({str(folder)!r})]).files\n"
        "assert any(rel.endswith('.svg') for rel in files)\n"
    )
    assert loaded_after(code, HEAVY) == list(HEAVY)
