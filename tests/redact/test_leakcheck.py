"""The independent survivor check must find what survived and nothing that did not."""

from __future__ import annotations

import base64
from pathlib import Path

from .leakcheck import survivors

# A sha256 (hex) whose base64 decoding happens to hold "vm" as a word: every manifest is full of them.
HASH_DECODING_TO_VM = "55d07c75935ca17d265eb54adeb7100098ed40042dd2bf68a14d41fdc911d76a"


def test_a_short_canary_in_the_random_bytes_a_hash_decodes_to_is_no_survivor(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text(f'{{"sha256": "{HASH_DECODING_TO_VM}"}}\n')
    assert base64.b64decode(HASH_DECODING_TO_VM + "=" * (-len(HASH_DECODING_TO_VM) % 4)).decode("latin-1").lower().find("vm") >= 0
    assert survivors(tmp_path, ["vm"]) == []


def test_a_short_canary_written_as_a_word_and_a_long_one_in_base64_are_survivors(tmp_path: Path) -> None:
    (tmp_path / "log.txt").write_text("ssh vm uptime\n")
    secret = base64.b64encode(b"x=gpu-node-17.lab.acme-corp.internal;").decode()
    (tmp_path / "env.txt").write_text(f"TOKEN={secret}\n")
    assert survivors(tmp_path, ["vm", "gpu-node-17.lab.acme-corp.internal"]) == [("env.txt", "gpu-node-17.lab.acme-corp.internal"), ("log.txt", "vm")]
