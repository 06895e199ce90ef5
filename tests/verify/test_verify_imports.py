"""What ``verify`` of a folder does not import: the HTTP client (only a URL is fetched) and the typed records of
raw free-text formats (only ``redact`` reads those). Each costs a tenth of a second of CPU on every verify, next
to the hashing the bench compares it with (docs/benchmarks.md)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from evidence_kit.attest import sign_tree

UNNEEDED = ("httpx", "evidence_kit.model.formats.vllm", "evidence_kit.model.formats.prometheus", "evidence_kit.model.formats.docker")


def _loaded_after(code: str) -> list[str]:
    probe = f"import sys\n{code}\nprint(' '.join(m for m in {UNNEEDED!r} if m in sys.modules))"
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()


def test_the_verify_command_imports_neither_the_http_client_nor_the_format_records() -> None:
    assert _loaded_after("import evidence_kit.commands.verify, evidence_kit.verify") == []


def test_the_format_records_are_still_importable_by_name() -> None:
    code = "from evidence_kit.model.formats import LABELS, PrometheusScrape, VllmStartup\nassert LABELS and PrometheusScrape and VllmStartup"
    assert _loaded_after(code) == ["evidence_kit.model.formats.vllm", "evidence_kit.model.formats.prometheus"]


SITE_ONLY = (
    "jinja2",
    "markdown",
    "html5lib",
    "yaml",
    "evidence_kit.render.docs_folder",
    "evidence_kit.render.charts",
    "evidence_kit.present",
    "evidence_kit.verify.site_pages",
)


def _verified_loading(folder: Path, public: Path) -> tuple[int, list[str]]:
    """``(exit code, which of SITE_ONLY were loaded)`` after ``evidence-kit verify FOLDER --key PUBLIC`` in a new process."""
    code = (
        "import sys\n"
        "from evidence_kit.cli import main\n"
        f"status = main(['verify', {str(folder)!r}, '--key', {str(public)!r}])\n"
        f"print(status, ' '.join(m for m in {SITE_ONLY!r} if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    status, *loaded = done.stdout.splitlines()[-1].split()
    return int(status), loaded


def test_verifying_a_decision_folder_imports_no_renderer_markdown_or_html_parser(redacted: Path, keypair: tuple[Path, Path]) -> None:
    # A decision folder has no pages: the template engine, Markdown, YAML and html5lib cost it a fifth of its
    # fixed CPU (docs/benchmarks.md) and judge nothing there; nor do the charts and the wording of the figures
    # (a thirtieth more), which the sources check's toolchain module once loaded for a file name.
    sign_tree(redacted, keypair[0])
    assert _verified_loading(redacted, keypair[1]) == (0, [])


def test_verifying_a_built_site_still_loads_them(site: Path, keypair: tuple[Path, Path]) -> None:
    status, loaded = _verified_loading(site, keypair[1])
    assert status == 0 and loaded == list(SITE_ONLY)


def _threads_after_verify(folder: Path, public: Path, env: dict[str, str]) -> tuple[int, str]:
    """``(threads of the process, its OPENBLAS_NUM_THREADS)`` after ``verify FOLDER --key PUBLIC`` in a new process."""
    code = (
        "import os\n"
        "from evidence_kit.cli import main\n"
        f"assert main(['verify', {str(folder)!r}, '--key', {str(public)!r}]) == 0\n"
        "print(len(os.listdir('/proc/self/task')), os.environ['OPENBLAS_NUM_THREADS'])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    threads, value = done.stdout.splitlines()[-1].split()
    return int(threads), value


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")
def test_verify_runs_on_one_thread_unless_the_user_asks_blas_for_more(redacted: Path, keypair: tuple[Path, Path]) -> None:
    # OpenBLAS starts a spinning worker per core when numpy loads (0.03-0.05 s of CPU); verify multiplies no matrix.
    sign_tree(redacted, keypair[0])
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    assert _threads_after_verify(redacted, keypair[1], env) == (1, "1")
    assert _threads_after_verify(redacted, keypair[1], env | {"OPENBLAS_NUM_THREADS": "2"})[1] == "2"
