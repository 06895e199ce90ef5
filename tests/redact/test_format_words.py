"""A private value spelled with the evidence format's own words must not break the evidence.

Regression: CI checked the project out under ``/check/work/main``. The simulator's start
command (a private path) taught the redactor the folder name ``check``, which it then
hunted on its own and replaced in every ``"type": "check"`` record, so ``analyze``
refused the redacted journals. Words of the format are public now; the whole path is
still redacted.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import get_args

from pydantic import BaseModel

from evidence_kit.analyze.report import Analysis
from evidence_kit.analyze.trial import analyze_trial
from evidence_kit.model import Check, Decision, Footer, Gate, Header, Manifest, Receipt, Request, Run, TelemetrySample, TelemetrySummary, Trial
from evidence_kit.read import load_trial
from evidence_kit.redact import redact_bundle
from evidence_kit.redact.vocabulary import format_words

from . import corpus
from .conftest import KEY
from .leakcheck import survivors

DISTINCT = "acme-ckout-7"


def _format_path() -> str:
    words = sorted(w for w in format_words() if len(w) >= 3 and w.isalpha())
    return "/" + "/".join(words) + f"/{DISTINCT}/.venv/bin/python"


def _add_structure(root: Path, command: str) -> None:
    """Gate and check records, a private start command, and real telemetry samples."""
    trial = corpus.make_trial()
    for ref in trial.arms:
        path = root / ref.journal
        lines = path.read_text().splitlines()
        header = json.loads(lines[0])
        header["private"]["start_command"] = f"{command} -m evidence_kit.engine_sim --port 8123"
        records = [
            {"type": "gate", "name": "smoke", "ok": True, "detail": "check passed before the run"},
            {"type": "check", "name": "ready", "ok": True, "detail": None, "level": "error"},
            {"type": "check", "name": "prefix-cache", "ok": True, "detail": "no hits", "level": "warning"},
        ]
        body = [json.dumps(header)] + [json.dumps(r) for r in records] + lines[1:]
        path.write_text("\n".join(body) + "\n")
        sample = {
            "type": "sample",
            "t_s": 0.5,
            "engine": {"running": 1.0, "waiting": 0.0, "kv_usage": 0.25},
            "gpus": None,
            "process": {"rss_bytes": 1000, "peak_rss_bytes": 1200, "processes": 2},
            "cgroup": None,
        }
        (root / "telemetry" / Path(ref.journal).name).write_text(json.dumps(sample) + "\n")


def _figures(analysis: dict) -> dict:
    """The analysis without what redaction changes on purpose: file hashes and sizes, error texts."""
    for arm in analysis["arms"]:
        del arm["sha256"], arm["size"]
    for failure in analysis["failures"]:
        del failure["error"]
    return analysis


def test_a_private_path_of_format_words_keeps_the_evidence_readable(tmp_path: Path) -> None:
    command = _format_path()
    assert "/check/" in command and "/type/" in command and "/before/" in command and "/engine/" in command
    raw = corpus.make_raw_trial(tmp_path / "raw" / "cache-layout")
    _add_structure(raw, command)
    before = analyze_trial(load_trial(raw))

    result = redact_bundle(raw, tmp_path / "out", key=KEY)

    assert result.publishable, [str(f) for f in result.findings]
    assert survivors(result.out, (command, DISTINCT)) == []
    after = analyze_trial(load_trial(result.out))  # raised "unknown record type 'path-…'" before the fix
    assert _figures(after.model_dump()) == _figures(before.model_dump())
    journal = (result.out / "journals" / "01-original-before.jsonl").read_text()
    assert '"type": "check"' in journal and '"type": "gate"' in journal and '"phase": "before"' in journal


def test_format_words_cover_every_record_type_key_and_telemetry_key() -> None:
    words = format_words()
    for word in (
        "header",
        "request",
        "run",
        "gate",
        "check",
        "footer",
        "warning",
        "before",
        "candidate",
        "restored",
        "control",
        "phase",
        "seq",
        "ttft_s",
        "engine",
        "gpus",
        "cgroup",
        "sample",
        "kv_usage",
        "oom_kills",
        "memory_free",
        "power_draw",
        "prefix_cache_hits",
        "generation",
    ):
        assert word in words, word


def _models_in(annotation: object) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for arg in get_args(annotation):
        yield from _models_in(arg)


def _field_names(*roots: type[BaseModel]) -> set[str]:
    """Every field name (as written in JSON) of the models and every model inside them."""
    names: set[str] = set()
    seen: set[type[BaseModel]] = set()
    todo = list(roots)
    while todo:
        model = todo.pop()
        if model not in seen:
            seen.add(model)
            for name, field in model.model_fields.items():
                names.add(field.alias or name)
                todo.extend(_models_in(field.annotation))
    return names


def test_every_field_of_every_contract_model_is_a_format_word() -> None:
    # Read off the models, not the schemas format_words() is built from: a field added to a
    # model (a telemetry source, a finding's value, a journal record's field) is public with
    # no list to update, or this fails.
    roots = (TelemetrySample, TelemetrySummary, Trial, Header, Request, Run, Gate, Check, Footer, Decision, Manifest, Receipt, Analysis)
    names = _field_names(*roots)
    assert {
        "engine",
        "gpus",
        "process",
        "cgroup",
        "memory_free",
        "oom_kills",
        "spec_decode_drafts",
        "max_gpu_power_w",
        "drift_pct",
        "kv_token_slots",
    } <= names
    assert names <= format_words(), sorted(names - format_words())


def test_every_key_the_collector_wrote_is_a_format_word() -> None:
    # What the collector really wrote (the demo's evidence in the repository): trial.json, the
    # journals and the telemetry samples. A key the models do not name could be rewritten by a
    # private value spelled like it. Left out: the values under a header's ``private`` (private
    # by definition) and the plan's own request-body fields (``extra_body``: the operator's).
    root = Path(__file__).resolve().parents[2] / "evidence"
    documents = [json.loads(path.read_text()) for path in sorted(root.glob("*/*/trial.json"))]
    for path in sorted([*root.glob("*/*/journals/*.jsonl"), *root.glob("*/*/telemetry/*.jsonl")]):
        documents += [json.loads(line) for line in path.read_text().splitlines()]

    def keys(node: object) -> set[str]:
        if isinstance(node, dict):
            kept = {k: v for k, v in node.items() if k not in ("private", "extra_body")}
            return set(kept) | {k for v in kept.values() for k in keys(v)}
        if isinstance(node, list):
            return {k for v in node for k in keys(v)}
        return set()

    found = {k for document in documents for k in keys(document)}
    assert {"engine", "oom_kills", "itl_us", "prompts", "seed"} <= found
    assert found <= format_words(), found - format_words()
