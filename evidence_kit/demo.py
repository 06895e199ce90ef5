"""The demo: the whole chain on the embedded simulated engine.

collect (two A/B/A trials, each arm a simulator started by the plan's own start
command) -> redact -> analyze -> build (signed) -> verify. Everything goes under one
output folder::

    OUT/raw/<decision>/        raw evidence: private, never published
    OUT/private/               the redaction key and map, the signing key
    OUT/evidence/<decision>/   the redacted, publishable decision folder
    OUT/site/                  the built site (mkdocs.yml, site/ Markdown, public/ HTML)
"""

from __future__ import annotations

import datetime as dt
import os
import secrets
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import tomli_w

from .analyze import Analysis, analyze
from .attest.keys import generate_keypair, load_public_key
from .collect import collect_trial
from .collect.failures import failure_lines
from .errors import BadInput, CheckFailed
from .publish import build_site
from .read import load_decision
from .redact import redact_bundle
from .verify import Pin, verify_folder

__all__ = ["DemoResult", "run_demo", "PLANS", "demo_decision_toml"]

PLANS = Path(__file__).resolve().parent / "examples" / "plans"
TRIALS = (("cache-layout", "sim-layout.toml"), ("dflash", "sim-dflash.toml"))
MARKER = ".evidence-kit-demo"


@dataclass
class DemoResult:
    out: Path
    decision: Path
    site: Path
    analysis: Analysis
    collected_ok: bool
    problems: list[str]
    verify_text: str
    verified: bool
    key_id: str  # the signing key's fingerprint, as a publisher would print it for auditors


def demo_decision_toml(date: str) -> str:
    """The operator's part of the demo decision: ids, title, setup facts and prose (no figures)."""
    return tomli_w.dumps(
        {
            "id": f"{date}-simulated-cache-layout-and-dflash",
            "date": date,
            "title": "Simulated cache-layout and DFlash scouts (evidence-kit demo)",
            "trials": ["cache-layout", "dflash"],
            "setup": {
                "model": "Same simulated target in every arm; its identity is pseudonymised like a real one",
                "hardware": "None: the embedded engine simulator (evidence-kit sim) on this machine's CPU",
                "runtime": "evidence-kit's vLLM-like simulator at 20x time scale (every latency is 1/20 of the modelled one)",
                "measurement_path": "Direct endpoint per arm, started by the plan's own start command, prefix caching on; standardized warmup; "
                "unique synthetic prompts, and in the cache-layout trial one group whose prompts open with one of six shared ~4K-token prefixes",
                "evidence": "Simulated engine: shows the method and the checks, not the performance of any real system",
            },
            "narrative": {
                "why_it_matters": "This decision was produced by the evidence-kit demo from two A/B/A trials on the embedded simulated engine. "
                "Its numbers exercise every part of the chain (collection, reconciliation, gates, redaction, analysis, publication, "
                "verification); they say nothing about real hardware.",
                "caveat": "The simulator models queueing, a KV pool in token slots, an LRU prefix cache in that pool and speculative decoding "
                "at toy scale. The layout candidate has more token slots and the DFlash candidate fewer, as in the reference decision; on "
                "the shared-prefix group the layout's extra slots keep more prefixes cached (its hit rate is shown per arm), which unique "
                "prompts cannot show. Any latency difference is the simulator's, not an engine's.",
                "what_remains": "Point the same plans at a real vLLM deployment (see examples/plans/vllm.toml) to measure an engine.",
            },
        }
    )


def _prepare(out: Path) -> None:
    if out.exists() and any(out.iterdir()) and not (out / MARKER).exists():
        raise BadInput("exists, is not empty and holds no earlier demo; choose another --out", out)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    (out / MARKER).write_text("written by evidence-kit demo\n")


def run_demo(out: Path, *, say: Callable[[str], None], progress_factory: Callable[[], object] | None = None, today: str | None = None) -> DemoResult:
    """Run the whole chain into ``out``; ``say`` prints one line of narration."""
    out = out.resolve()
    _prepare(out)
    date = today or dt.datetime.now(dt.UTC).date().isoformat()
    decision_id = f"{date}-simulated-cache-layout-and-dflash"
    raw = out / "raw" / decision_id
    private = out / "private"
    private.mkdir(mode=0o700)
    raw.mkdir(parents=True)
    (raw / "decision.toml").write_text(demo_decision_toml(date))

    problems: list[str] = []
    for trial_id, plan in TRIALS:
        say(f"[1/5] collect: {trial_id} (original -> candidate -> original restored, on the simulator)")
        result = collect_trial(PLANS / plan, raw / trial_id, progress=progress_factory() if progress_factory else None)  # type: ignore[arg-type]
        problems += [f"{trial_id}: {p}" for p in result.problems]
        for line in failure_lines(result):
            say(line)
        if not result.ran:
            # An arm that measured nothing leaves no decision to publish: the demo fails here, saying why.
            why = next((f"{a.name}: {p}" for a in result.arms if not a.completed for p in a.problems), "an arm completed no timed request")
            raise CheckFailed(f"the {trial_id} trial did not run ({why}); the demo stops before publishing anything", raw / trial_id)

    say("[2/5] redact: pseudonymise private identities, rehash, receipt, leak scan")
    key = secrets.token_bytes(32)
    key_file = private / "redaction.key"
    key_file.write_bytes(key)
    os.chmod(key_file, 0o600)
    evidence = out / "evidence" / decision_id
    redacted = redact_bundle(raw, evidence, key=key, map_out=private / "redaction-map.json")
    if not redacted.publishable:
        raise BadInput(f"redaction left {len(redacted.findings)} finding(s); the demo output is not publishable", evidence)

    say("[3/5] analyze: pooled medians, the predeclared rule, findings")
    analysis = analyze(load_decision(evidence))

    say("[4/5] build: decision pages, charts, evidence copies, signed manifest, leak scan of the site")
    secret_key, public_key, key_id = generate_keypair(private / "signing")
    site = out / "site"
    build_site([evidence], site, private_maps=[private / "redaction-map.json"], sign_key=secret_key)

    say(f"[5/5] verify: the site, pinned to the key just generated (key id {key_id})")
    report = verify_folder(site, Pin.of_key(load_public_key(public_key)))
    return DemoResult(
        out=out,
        decision=evidence,
        site=site,
        analysis=analysis,
        collected_ok=not problems,
        problems=problems,
        verify_text=report.as_text(),
        verified=report.verified,
        key_id=key_id,
    )
