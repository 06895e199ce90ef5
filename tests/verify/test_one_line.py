"""Every problem verify (and any command's bad-input error) prints stays one line, whatever a file name holds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# Names an attacker (or a careless copy) can give a file: each must be shown escaped, on its problem's line.
HOSTILE = {
    b"evil\nFAIL forged.log": "evil\\nFAIL forged.log",
    b"carriage\rreturn": "carriage\\rreturn",
    b"tab\there": "tab\\there",
    b"esc\x1b[2Kwiped": "esc\\x1b[2Kwiped",
    b"not-utf8-\xff\xfe": "not-utf8-\\xff\\xfe",
    "line\u2028separator".encode(): "line\\u2028separator",
    "bidi\u202etxt.exe".encode(): "bidi\\u202etxt.exe",
}


def _verify(*args: str | Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "evidence_kit", "verify", *map(str, args)], capture_output=True, timeout=120)


def test_unlisted_files_with_control_characters_in_their_names_are_one_escaped_line_each(redacted: Path) -> None:
    bundle = redacted / "cache-layout"
    for name in HOSTILE:
        Path(os.fsdecode(os.fsencode(bundle) + b"/" + name)).write_text("planted\n")

    result = _verify(bundle)
    out = result.stdout.decode("utf-8")  # strict: a name that is not UTF-8 must not reach the output raw
    lines = out.splitlines()  # splits on \r, \x1c-\x1e, \x85 and U+2028 too, as a reader's tools may
    assert result.returncode == 1 and out.endswith("\n") and len(lines) == out.count("\n")
    problems = [line for line in lines if line.startswith("     ")]
    assert all(line[:4] in ("PASS", "FAIL", "SKIP") for line in lines[:-1] if not line.startswith("     "))
    assert lines[-1].startswith("FAILED: ")
    assert len(problems) == 2 * len(HOSTILE)  # unlisted (complete), and no file of the contract's layout (contract)
    for shown in HOSTILE.values():
        assert sum(f"/{shown}: present but not listed in " in line for line in problems) == 1, (shown, out)
        assert sum(f"/{shown}: not a file of the evidence contract " in line for line in problems) == 1, (shown, out)
    assert not any(ch in out for ch in "\r\t\x1b\u2028\u202e")

    report = json.loads(_verify(bundle, "--json").stdout.decode("utf-8"))
    wheres = {p["where"].rsplit("/", 1)[-1] for c in report["checks"] for p in c["problems"]}
    assert "evil\nFAIL forged.log" in wheres  # JSON escapes control characters itself: the exact name
    assert "not-utf8-\\xff\\xfe" in wheres  # an undecodable byte has no exact JSON text: shown escaped


def test_a_bad_input_error_naming_a_hostile_path_is_one_line(tmp_path: Path) -> None:
    target = Path(os.fsdecode(os.fsencode(tmp_path) + b"/gone\nverified: all\xff"))
    result = _verify(target)
    err = result.stderr.decode("utf-8")
    assert result.returncode == 2 and "Traceback" not in err
    assert err == f"evidence-kit: {tmp_path}/gone\\nverified: all\\xff: no such file or folder\n"
