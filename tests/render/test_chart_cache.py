"""The chart cache: a site's bytes are the same drawn afresh, read back, or drawn again over a damaged,
stale or unwritable cache; and a read-back really skips the drawing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence_kit.analyze import Analysis
from evidence_kit.examples.reference import write_reference_decision
from evidence_kit.model.evidence import DecisionEvidence
from evidence_kit.publish import load_decisions
from evidence_kit.render import chart_cache
from evidence_kit.render.chart_cache import CACHE_ENV, ChartCache, default_cache_folder
from evidence_kit.render.docs_folder import docs_files

Loaded = list[tuple[DecisionEvidence, Analysis]]


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    return load_decisions([write_reference_decision(tmp_path_factory.mktemp("reference") / "decision")])


@pytest.fixture(scope="module")
def fresh(loaded: Loaded) -> dict[str, bytes]:
    """Every file with every chart drawn afresh (no cache)."""
    return docs_files(loaded)


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*/*.json"))


def test_a_cold_and_a_warm_cache_give_the_bytes_drawn_afresh(loaded: Loaded, fresh: dict[str, bytes], tmp_path: Path) -> None:
    cache = ChartCache(tmp_path / "charts")
    assert docs_files(loaded, draw=cache.trial_charts) == fresh
    trials = len(loaded[0][1].trials)
    assert (cache.hits, cache.misses) == (0, trials)
    assert len(_entries(tmp_path / "charts")) == trials
    again = ChartCache(tmp_path / "charts")
    assert docs_files(loaded, draw=again.trial_charts) == fresh
    assert (again.hits, again.misses) == (trials, 0)


def test_a_read_back_draws_nothing(loaded: Loaded, fresh: dict[str, bytes], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs_files(loaded, draw=ChartCache(tmp_path).trial_charts)

    def no_drawing(*_: object) -> None:
        raise AssertionError("a cached trial's charts were drawn again")

    monkeypatch.setattr(chart_cache, "trial_charts", no_drawing)
    assert docs_files(loaded, draw=ChartCache(tmp_path).trial_charts) == fresh


def _damage_svg(entry: dict) -> None:
    entry["charts"][0]["svg"] = entry["charts"][0]["svg"].replace("<svg", "<svg onload='alert(1)'", 1)


def _other_key(entry: dict) -> None:
    entry["key"] = "0" * 64


def _older_format(entry: dict) -> None:
    entry["format"] = chart_cache.FORMAT - 1


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda path: path.write_bytes(path.read_bytes()[:100]), id="truncated"),
        pytest.param(lambda path: path.write_bytes(b"\x00\xff not json"), id="garbage"),
        pytest.param(lambda path: path.write_text("[]"), id="not-an-entry"),
        pytest.param(lambda path: path.write_text("[" * 100_000 + "]" * 100_000), id="nested-past-the-recursion-limit"),
        pytest.param(_damage_svg, id="svg-edited-digest-kept"),
        pytest.param(_other_key, id="stale-another-key"),
        pytest.param(_older_format, id="stale-older-format"),
    ],
)
def test_a_damaged_or_stale_entry_is_drawn_again_and_replaced(loaded: Loaded, fresh: dict[str, bytes], tmp_path: Path, damage) -> None:
    docs_files(loaded, draw=ChartCache(tmp_path).trial_charts)
    for path in _entries(tmp_path):
        if damage.__name__ == "<lambda>":
            damage(path)
        else:
            entry = json.loads(path.read_bytes())
            damage(entry)
            path.write_text(json.dumps(entry))
    cache = ChartCache(tmp_path)
    assert docs_files(loaded, draw=cache.trial_charts) == fresh
    assert cache.hits == 0 and cache.misses == len(loaded[0][1].trials)
    repaired = ChartCache(tmp_path)
    assert docs_files(loaded, draw=repaired.trial_charts) == fresh
    assert repaired.misses == 0


def test_a_cache_that_cannot_be_written_is_no_cache(loaded: Loaded, fresh: dict[str, bytes], tmp_path: Path) -> None:
    (tmp_path / "charts").write_text("a file where the cache folder would be")
    cache = ChartCache(tmp_path / "charts")
    assert docs_files(loaded, draw=cache.trial_charts) == fresh
    assert cache.hits == 0


def test_a_folder_where_an_entry_should_be_is_a_miss_every_time(loaded: Loaded, fresh: dict[str, bytes], tmp_path: Path) -> None:
    docs_files(loaded, draw=ChartCache(tmp_path).trial_charts)
    for path in _entries(tmp_path):
        path.unlink()
        path.mkdir()
    for _ in range(2):  # drawn again, and not kept: the folder is left alone
        cache = ChartCache(tmp_path)
        assert docs_files(loaded, draw=cache.trial_charts) == fresh
        assert cache.misses == len(loaded[0][1].trials)


def test_the_oldest_entries_go_past_the_limit(loaded: Loaded, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chart_cache, "MAX_ENTRIES", 1)
    docs_files(loaded, draw=ChartCache(tmp_path).trial_charts)
    assert len(_entries(tmp_path)) == 1


def test_the_cache_folder_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "mine"))
    assert default_cache_folder() == tmp_path / "mine"
    monkeypatch.setenv(CACHE_ENV, "off")
    assert default_cache_folder() is None
    monkeypatch.delenv(CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_folder() == tmp_path / "xdg" / "evidence-kit" / "charts"
