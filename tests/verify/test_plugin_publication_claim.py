"""A plugin-published folder made to look like a built site (a root index.html, the layout that
switches verify to a built site's comparison). Unsigned, the manifest refuses it; re-signed by the key holder with
the plugin's claim kept, the claim and the layout disagree. Held: both fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.resign import resign, signed_predicate
from tests.verify.test_plugin_published import signed, signed_master  # noqa: F401
from tests.verify.test_site_tamper import _failed

pytestmark = pytest.mark.slow  # one real MkDocs build of a host site (module fixture)


def test_a_root_index_added_to_a_plugin_folder_does_not_switch_verify_to_a_built_site(run_cli, signed: Path, keypair) -> None:  # noqa: F811
    (signed / "index.html").write_text("<html><body><p>Independent audit: passed</p></body></html>")
    unsigned = run_cli("verify", signed, "--key", keypair[1])
    assert unsigned.code == 1 and not unsigned.out.splitlines()[-1].startswith("verified"), unsigned.out
    assert signed_predicate(signed)["publication"] == "mkdocs-plugin"
    resign(signed, keypair[0])  # the builder's claims kept: publication mkdocs-plugin
    failed = _failed(run_cli("verify", signed, "--key", keypair[1]))
    assert any(
        "laid out as a built site, but the signed statement says it was published as 'mkdocs-plugin'" in line for line in failed.get("figures", [])
    ), failed
