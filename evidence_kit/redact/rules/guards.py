"""Guard rules: what is never learnt as private, however it was met.

A value typed as an identity is still pseudonymised in its own field whatever it is; a guard only
keeps a spelling out of the hunt, where an ordinary word would be found in the site's own pages,
styles and schemas (``auto`` in CSS, ``docs`` in a schema) and no site could be built. A policy
that declares such a word private is refused, naming how to declare it instead.
"""

from __future__ import annotations

import re

from ..vocabulary import english_words, format_words, template_words
from . import Example, Rule

__all__ = ["GUARDS", "guard_of"]

_NUMBER = re.compile(r"^[0-9]{1,5}$")
_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9:.]+Z?)?$|^[0-9]{1,2}[-/][0-9]{1,2}(?:[-/][0-9]{2,4})?$")
_VERSION = re.compile(r"^v?[0-9]+(?:\.[0-9]+)+(?:-[0-9]+(?:\.[0-9]+)*)?(?:[.-]?(?:dev|post|rc|a|b|alpha|beta)[0-9]*)*(?:\+[A-Za-z0-9.]+)?$")
# Names that name nobody: loopback and unspecified addresses, public hubs and registries, the docs of the
# engines (vLLM's own warnings link docs.vllm.ai), and the placeholder domains of RFC 2606 and 6761.
PUBLIC_NAMES = frozenset(
    """
    localhost localhost.localdomain 127.0.0.1 0.0.0.0 ::1 :: 255.255.255.255
    huggingface.co hf.co github.com pypi.org docker.io index.docker.io registry-1.docker.io nvcr.io ghcr.io quay.io
    nvidia.com vllm.ai docs.vllm.ai python.org pytorch.org download.pytorch.org
    example.com example.org example.net evidence-kit.invalid
    """.split()
)


def _too_short(word: str) -> bool:
    return len(word.strip()) < 3


def _config_word(word: str) -> bool:
    return word.strip().casefold() in format_words()


def _english(word: str) -> bool:
    return word.strip().casefold() in english_words()


def _template(word: str) -> bool:
    return word.strip().casefold() in template_words()


def _short_number(word: str) -> bool:
    return _NUMBER.match(word.strip()) is not None


def _date(word: str) -> bool:
    return _DATE.match(word.strip()) is not None


def _version(word: str) -> bool:
    return _VERSION.match(word.strip()) is not None and not re.fullmatch(r"[0-9]{1,3}(?:\.[0-9]{1,3}){3}", word.strip())


_RUN_WORD = re.compile(r"^(?:r[0-9]+-[0-9]+-(?:c[0-9]+|rate[0-9.]+)|[cr][0-9]+(?:\.[0-9]+)?|rate[0-9.]+|~?[0-9]+k?/[cr][0-9.]+)$", re.IGNORECASE)


def _run_word(word: str) -> bool:
    return _RUN_WORD.match(word.strip()) is not None


def _public_name(word: str) -> bool:
    """A public name, or a URL or ``host:port`` on one (``http://127.0.0.1:8000/v1``)."""
    text = word.strip().casefold()
    host = re.sub(r"^[a-z][a-z0-9+.-]*://", "", text).split("/", 1)[0].rsplit("@", 1)[-1]
    if host.startswith("["):
        host = host[1 : host.find("]")] if "]" in host else host
    elif host.count(":") == 1:
        host = host.split(":")[0]
    return text in PUBLIC_NAMES or host in PUBLIC_NAMES


GUARDS: tuple[Rule, ...] = (
    Rule(
        "too-short",
        "guard",
        "a spelling of fewer than three characters: too short to tell from ordinary text",
        refuses=_too_short,
        examples=(Example("vm", gives=("refused",)), Example("gpu7", not_gives=("refused",))),
    ),
    Rule(
        "configuration-word",
        "guard",
        "a word of the evidence format itself: a field, record or enum name of the contract's schemas, or a part of one "
        "(`check`, `phase`, `engine`, `generation`)",
        refuses=_config_word,
        examples=(
            Example("check", gives=("refused",)),
            Example("kv_usage", gives=("refused",)),
            Example("falcon-prod-internal", not_gives=("refused",)),
        ),
    ),
    Rule(
        "english-word",
        "guard",
        "an ordinary English word (the web2 word list: `tiny`, `auto`, `empty`, `harbor`)",
        refuses=_english,
        examples=(Example("tiny", gives=("refused",)), Example("Auto", gives=("refused",)), Example("jdoe-ops", not_gives=("refused",))),
    ),
    Rule(
        "template-word",
        "guard",
        "a word of the site's own templates, styles and scripts, or the tool's own name (`docs`, `evidence-kit`)",
        refuses=_template,
        examples=(Example("evidence-kit", gives=("refused",)), Example("docs", gives=("refused",)), Example("acme-corp", not_gives=("refused",))),
    ),
    Rule(
        "short-number",
        "guard",
        "a number of fewer than six digits: a count or a setting, never an identity",
        refuses=_short_number,
        examples=(Example("8192", gives=("refused",)), Example("1322021012345", not_gives=("refused",))),
    ),
    Rule(
        "date",
        "guard",
        "a date or a timestamp (`2026-11-01`, `2026-11-01T09:00:00Z`, `12-03`)",
        refuses=_date,
        examples=(Example("2026-11-01", gives=("refused",)), Example("2026-11-01T09:00:00Z", gives=("refused",))),
    ),
    Rule(
        "version",
        "guard",
        "a version string (`0.11.1`, `v0.32.0`, `0.11.1.dev3+g3f9c2a7`, OFED's `24.10-1.1.4.0`); four numbers alone "
        "may be an IPv4 address, so they are not one",
        refuses=_version,
        examples=(
            Example("0.11.1", gives=("refused",)),
            Example("0.11.1.dev3+g3f9c2a7", gives=("refused",)),
            Example("40.30.20.10.in-addr.arpa", not_gives=("refused",)),
            Example("24.10-1.1.4.0", gives=("refused",)),
            Example("10.20.30.40", not_gives=("refused",)),
        ),
    ),
    Rule(
        "run-word",
        "guard",
        "the evidence's own names for runs and loads: a run id (`r1-8192-c256`), a load (`c256`, `R2.0`, `rate2.0`), a "
        "group label (`~8K/C256`); a node named `c256` is still pseudonymised in its own field",
        refuses=_run_word,
        examples=(
            Example("c256", gives=("refused",)),
            Example("r1-8192-c4", gives=("refused",)),
            Example("~8K/C256", gives=("refused",)),
            Example("c256.hpc.lab.internal", not_gives=("refused",)),
        ),
    ),
    Rule(
        "public-name",
        "guard",
        "a name that names nobody: loopback and unspecified addresses, public hubs and registries, the engines' docs "
        "(`localhost`, `127.0.0.1`, `huggingface.co`, `docs.vllm.ai`)",
        refuses=_public_name,
        examples=(
            Example("docs.vllm.ai", gives=("refused",)),
            Example("http://127.0.0.1:40625", gives=("refused",)),
            Example("lab.acme.internal", not_gives=("refused",)),
        ),
    ),
)


def guard_of(word: str) -> Rule | None:
    """The first guard that refuses ``word`` as private, or ``None`` when none does."""
    return next((rule for rule in GUARDS if rule.refuses is not None and rule.refuses(word)), None)
