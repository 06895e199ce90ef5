"""The files an auditor names on the command line are read within a bound, so none can hold the verifier.

``--key`` and ``--since`` read their file whole: ``--key /dev/zero`` (or any device, or a file of gigabytes) grew
the verifier past 20 GB until the system killed it, with no line said. A key file is read up to 64 KiB (as verify
by URL reads a site's ``signing.pub``), a state file up to 16 MiB; past that, one line naming the file, exit 2.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evidence_kit.fsutil import read_bounded

LINE = re.compile(r"^evidence-kit: (?P<path>\S+): (?P<what>.+)$")


def _one_line(result, path: Path, what: str) -> None:
    assert result.code == 2 and result.out == "", result
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.err, result.err
    match = LINE.match(lines[0])
    assert match and match["path"] == str(path) and what in match["what"], lines[0]


def test_a_padded_key_file_is_refused(run_cli, site: Path, keypair, tmp_path: Path) -> None:
    key = tmp_path / "padded.pub"
    key.write_bytes(keypair[1].read_bytes() + b"\n" * (1 << 20))
    _one_line(run_cli("verify", site, "--key", key), key, "larger than 64 KiB")


def test_a_key_file_without_end_is_refused(run_cli, site: Path) -> None:
    _one_line(run_cli("verify", site, "--key", "/dev/zero"), Path("/dev/zero"), "larger than 64 KiB")


def test_a_padded_state_file_is_refused(run_cli, site: Path, keypair, tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    assert run_cli("verify", site, "--key", keypair[1], "--save-state", state).code == 0
    state.write_bytes(state.read_bytes() + b" " * (17 << 20))
    _one_line(run_cli("verify", site, "--key", keypair[1], "--since", state), state, "larger than 16 MiB")


def test_a_state_file_without_end_is_refused(run_cli, site: Path, keypair) -> None:
    _one_line(run_cli("verify", site, "--key", keypair[1], "--since", "/dev/zero"), Path("/dev/zero"), "larger than 16 MiB")


def test_a_key_given_through_a_pipe_is_read(run_cli, site: Path, keypair, tmp_path: Path) -> None:
    """A bounded read still reads a key that arrives through a pipe (``--key <(curl …)``)."""
    import os
    import threading

    fifo = tmp_path / "key.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(keypair[1].read_bytes()))
    writer.start()
    result = run_cli("verify", site, "--key", fifo)
    writer.join()
    assert result.code == 0, result.out + result.err


@pytest.mark.parametrize("size", [0, 5, 6])
def test_read_bounded_reads_no_further_than_one_byte_past_its_limit(tmp_path: Path, size: int) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * size)
    assert read_bounded(path, 5) == (b"x" * size if size <= 5 else None)
    assert read_bounded(Path("/dev/zero"), 5) is None
