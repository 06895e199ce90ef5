"""What ``verify`` of a folder does not import: the HTTP client (only a URL is fetched) and the typed records of
raw free-text formats (only ``redact`` reads those). Each costs a tenth of a second of CPU on every verify, next
to the hashing the bench compares it with (docs/benchmarks.md)."""

from __future__ import annotations

import subprocess
import sys

UNNEEDED = ("httpx", "evidence_kit.model.formats.vllm", "evidence_kit.model.formats.prometheus", "evidence_kit.model.formats.docker")


def _loaded_after(code: str) -> list[str]:
    probe = f"import sys\n{code}\nprint(' '.join(m for m in {UNNEEDED!r} if m in sys.modules))"
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()


def test_the_verify_command_imports_neither_the_http_client_nor_the_format_records() -> None:
    assert _loaded_after("import evidence_kit.commands.verify, evidence_kit.verify") == []


def test_the_format_records_are_still_importable_by_name() -> None:
    code = "from evidence_kit.model.formats import LABELS, PrometheusScrape, VllmStartup\nassert LABELS and PrometheusScrape and VllmStartup"
    assert _loaded_after(code) == ["evidence_kit.model.formats.vllm", "evidence_kit.model.formats.prometheus"]
