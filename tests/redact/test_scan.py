"""The known-value scan of any folder: names and contents, every reading, symbolic links never followed."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from evidence_kit.redact import KnownValue, Policy, scan_tree, scanner

HOST = KnownValue("host", "gpu-node-17.lab.acme-corp.internal")


def test_a_known_value_is_found_in_a_name_and_in_every_reading_of_a_line(tmp_path: Path) -> None:
    (tmp_path / "gpu-node-17.log").write_text("nothing\n")
    (tmp_path / "page.html").write_text("ok\n<p>gpu&#45;node&#45;17</p>\n")
    (tmp_path / "data.json").write_text('{"a": "x"}\n{"b": "gpu\\u002dnode-17"}\n')
    (tmp_path / "blob.txt").write_text(base64.b64encode(b"on gpu-node-17.lab.acme-corp.internal today").decode() + "\n")
    found = {(f.file, f.line, f.cls) for f in scan_tree(tmp_path, known_values=[HOST])}
    assert found == {("[host]", None, "host"), ("page.html", 2, "host"), ("data.json", 2, "host"), ("blob.txt", 1, "host")}


def test_a_symbolic_link_is_a_finding_and_never_followed(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").symlink_to("/etc")
    assert [(f.file, f.source) for f in scan_tree(tmp_path)] == [("elsewhere", "unscannable")]


def test_a_policys_public_word_is_never_hunted(tmp_path: Path) -> None:
    (tmp_path / "page.md").write_text("the gpu-node-17 pool\n")
    assert scan_tree(tmp_path, known_values=[HOST], policy=Policy(public=["gpu-node-17"])) == []
    assert [f.cls for f in scan_tree(tmp_path, known_values=[HOST])] == ["host"]


def test_a_finding_names_its_line_whatever_the_batch_cuts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Lines end in \n, \r\n and a lone \r, as a file reads them; a batch the scan reads may end anywhere,
    # between a \r and its \n too, or inside a line or a character that is not UTF-8.
    lines = ["plain\n", "crlf\r\n", "gpu-node-17 here\r\n", "lone\r", "é gpu-node-17\n", "x\r", "\r\n", "last gpu-node-17"]
    path = tmp_path / "mixed.txt"
    path.write_bytes("".join(lines).encode("utf-8") + b"\n\xff gpu-node-17\r")
    expected = [("mixed.txt", number, "host") for number in (3, 5, 8, 9)]
    for batch in (1, 2, 3, 5, 8, 13, 1 << 20):
        monkeypatch.setattr(scanner, "_BATCH", batch)
        assert [(f.file, f.line, f.cls) for f in scan_tree(tmp_path, known_values=[HOST])] == expected, batch


def test_spellings_that_share_a_prefix_are_each_found(tmp_path: Path) -> None:
    # The scan searches a text once for a prefix several spellings share (two GPUs of one batch, each with
    # and without its dashes), then for the spellings themselves: each is still found, on its own line.
    gpus = [KnownValue("gpu", f"GPU-5b1c2d3{i}-4f5a-6b7c-8d9e-0f1a2b3c4d5e") for i in (0, 1)]
    (tmp_path / "rows.txt").write_text("5b1c2d3 alone\nid 5b1c2d31-4f5a-6b7c-8d9e-0f1a2b3c4d5e\nnothing\nid 5b1c2d304f5a6b7c8d9e0f1a2b3c4d5e\n")
    assert [(f.line, f.cls) for f in scan_tree(tmp_path, known_values=gpus)] == [(2, "gpu"), (4, "gpu")]
