"""Shared fixtures: evidence written by the tests themselves, and the CLI run in-process."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from evidence_kit.cli import main
from evidence_kit.examples.reference import write_reference_decision
from tests.multiturn_trial import multiturn_trial  # noqa: F401  (one real multi-turn trial, shared)

# Tests send Ctrl-C (SIGINT) to the collectors they start. A shell that starts the suite in the background
# without job control leaves SIGINT ignored, and an ignored signal stays ignored in every child: the
# collector would never see the Ctrl-C. A handler here is reset to the default in each child it starts.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session", autouse=True)
def suite_chart_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Builds (and the CLIs the tests start) keep their charts in the suite's own cache, never the user's."""
    folder = tmp_path_factory.mktemp("chart-cache")
    before = os.environ.get("EVIDENCE_KIT_CHART_CACHE")
    os.environ["EVIDENCE_KIT_CHART_CACHE"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("EVIDENCE_KIT_CHART_CACHE", None)
    else:
        os.environ["EVIDENCE_KIT_CHART_CACHE"] = before


@dataclass
class CliResult:
    code: int
    out: str
    err: str


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]):
    """Run ``evidence-kit ARGS`` in-process; return exit code, stdout and stderr."""

    def run(*args: str) -> CliResult:
        capsys.readouterr()
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


@pytest.fixture
def reference_decision(tmp_path: Path) -> Path:
    """A decision folder whose journals reproduce the reference page's published medians."""
    return write_reference_decision(tmp_path / "reference")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the real-engine tier first, the vLLM trial before the llama.cpp one: it is the longest test
    (three vLLM starts), and xdist hands each worker consecutive tests from the front, so one worker
    starts it at once while the others work through the rest, instead of it starting late and
    lengthening the run; the llama.cpp trial (seconds) follows it on the same worker."""

    def tier(item: pytest.Item) -> int:
        name = item.path.name
        return 0 if name == "test_real_vllm.py" else 1 if name.startswith("test_real_") else 2

    items.sort(key=tier)
