"""An IPv6 address written after one colon ('peer:2001:db8::1', or a host's pseudonym then ':fe80::…')
was seen by no detector: the redactor left it, and since 6a739ef the output scan drops the hit that
the pseudonym's last digit made ('host-1:fe80::…'), so the bundle was published with the address."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.examples.reference import REFERENCE_TRIALS, write_trial_bundle
from evidence_kit.redact import redact_bundle
from evidence_kit.redact.detectors import compile_detectors, find


@pytest.mark.parametrize(
    "line, address",
    [
        ("peer:2001:db8:85a3::8a2e:370:7334", "8a2e:370:7334"),
        ("x gpu-07.cluster.acme-corp.internal:fe80::1234:5678:9abc", "1234:5678:9abc"),
        ("addr:2001:db8:85a3:0:0:8a2e:370:7334", "8a2e:370:7334"),
    ],
)
def test_ipv6_after_a_colon_is_redacted(tmp_path: Path, line: str, address: str) -> None:
    raw = write_trial_bundle(tmp_path / "raw", "t", REFERENCE_TRIALS["cache-layout"])
    (raw / "run.log").write_text(line + "\n")
    result = redact_bundle(raw, tmp_path / "out")
    assert not (result.publishable and address in (result.out / "run.log").read_text())


@pytest.mark.parametrize("text", ["std::vector", "crate::add", "12:30:45", "a:b", "time 10:20:30.5"])
def test_no_address_in_code_or_times(text: str) -> None:
    assert not [h for h in find(compile_detectors(), text) if h[2] == "ip"]
