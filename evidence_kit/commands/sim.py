"""``evidence-kit sim``: run the embedded vLLM-like engine simulator on loopback."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import BadInput
from .params import FiniteFloatRange


def _identity(items: tuple[str, ...]) -> dict[str, str]:
    values: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise BadInput(f"--identity {item!r}: expected FIELD=VALUE")
        values[name.strip()] = value
    return values


@click.command()
@click.option(
    "--profile",
    "profile",
    default="original",
    show_default=True,
    metavar="NAME|FILE",
    help="A shipped profile (original, layout-candidate, dflash-candidate) or a profile TOML file.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (loopback by default).")
@click.option(
    "--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port to listen on; 0 picks a free one (the URL printed names it)."
)
@click.option(
    "--time-scale",
    default=1.0,
    show_default=True,
    type=FiniteFloatRange(min=0, min_open=True),
    help="Run the modelled engine this many times faster (tests use 10-100).",
)
@click.option(
    "--ground-truth",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Append one JSON line per request with the server's monotonic send times of every event.",
)
@click.option(
    "--ground-truth-bodies",
    is_flag=True,
    default=False,
    help="With --ground-truth: each line also holds the request's messages, its x- headers and the "
    "content it was answered with (how a multi-turn conversation's history reached the engine).",
)
@click.option(
    "--identity",
    "identity",
    multiple=True,
    metavar="FIELD=VALUE",
    help="Override an identity field (served_model_name, model_path, revision, image, gpu_uuids "
    "(comma-separated), host, container_id, engine_version); also EVIDENCE_KIT_SIM_<FIELD>.",
)
@click.option(
    "--fault",
    "faults",
    multiple=True,
    metavar="KIND=RATE",
    help="Inject a fault into this share of requests: http-500, http-503, drop, stall, malformed, "
    "wrong-usage, wrong-cached (or stall-seconds=S). Per request: header X-Sim-Fault: KIND.",
)
@click.option(
    "--prefix-caching/--no-prefix-caching",
    "prefix_caching",
    default=None,
    help="Keep full prompt blocks cached in the KV pool after their request and report "
    "usage.prompt_tokens_details.cached_tokens (the profile's kv_cache.prefix_caching, off, by default).",
)
@click.option(
    "--dialect",
    type=click.Choice(["vllm", "sglang", "llama.cpp"]),
    default=None,
    help="Speak this engine's /metrics names and capacity log line (the profile's dialect, vllm, by default); the numbers are the same.",
)
def sim(
    profile: str,
    host: str,
    port: int,
    time_scale: float,
    ground_truth: Path | None,
    ground_truth_bodies: bool,
    identity: tuple[str, ...],
    faults: tuple[str, ...],
    dialect: str | None,
    prefix_caching: bool | None,
) -> None:
    """Run the embedded OpenAI-compatible engine simulator until stopped (Ctrl-C).

    Prints vLLM-like start-up lines (KV cache size, # GPU blocks, identities) on stderr and the
    server's URL alone on stdout.
    """
    # Imported when the command runs, not at the top: `evidence-kit --help` imports every command's module
    # to list it, and the simulator's server (uvicorn, starlette) would add about 0.3 s to that.
    from ..engine_sim.server import configure_profile, serve

    configured = configure_profile(profile, identity=_identity(identity), faults=faults, dialect=dialect, prefix_caching=prefix_caching)
    try:
        serve(configured, host=host, port=port, time_scale=time_scale, ground_truth=ground_truth, ground_truth_bodies=ground_truth_bodies)
    except OSError as err:
        raise BadInput(f"cannot listen on {host}:{port} ({err.strerror or err})") from None
