"""Synthetic prompts: unique per request, sized to a nominal token count, identical across arms.

Every prompt is a fixed instruction followed by words drawn from a small
vocabulary with a generator seeded by the trial seed and the request's key
(``r1-8192-c4/0``, ``warmup/1``...), so no two requests share more than the
instruction (prefix caching can flatter no arm) and every arm gets the same
text. The number of words per nominal token comes from a calibration against
the first arm's engine: its ``/tokenize`` endpoint when it has one, else the
``usage`` of two one-token completions.

A shared-prefix workload (``prefix_tokens``, ``prefixes``) opens the body of a prefix group's
prompt with one of ``prefixes`` shared texts, sized so that the template, instruction and
shared text come to about ``prefix_tokens`` tokens, followed by the request's own words. Which
prefix a request takes is drawn from the seed and its key, so every arm sends the same.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["Calibration", "PromptBook", "VOCABULARY", "calibration_text", "chat_messages"]

# Common English words: one token each in most BPE vocabularies, so token count
# follows word count closely and the calibration ratio holds across prompt sizes.
VOCABULARY: tuple[str, ...] = tuple(
    """
    time year people way day man thing woman life child world school state family student group
    country problem hand part place case week company system program question work government
    number night point home water room mother area money story fact month lot right study book eye
    job word business issue side kind head house service friend father power hour game line end
    member law car city community name president team minute idea kid body information back parent
    face others level office door health person art war history party result change morning reason
    research girl guy moment air teacher force education foot boy age policy process music market
    sense nation plan college interest death experience effect use class control care field
    development role effort rate heart drug show leader light voice wife police mind price report
    decision son view relationship town road arm difference value building action model season
    society tax director position player record paper space ground form event official matter
    center couple site project activity star table need court oil situation cost industry figure
    street image phone data picture practice piece land product doctor wall patient worker news test
    movie north love support technology step baby computer type attention film tree source
    organization hair window evidence population site truth river garden stone bridge engine signal
    """.split()
)

CALIBRATION_WORDS = 2000


@dataclass(frozen=True)
class Calibration:
    """How many tokens the chat template plus instruction cost, and tokens per body word."""

    method: str
    overhead_tokens: int
    tokens_per_word: float
    calibration_words: int = CALIBRATION_WORDS

    def words_for(self, target_tokens: int) -> int:
        """Body words that bring a prompt to about ``target_tokens`` tokens."""
        return max(1, round((target_tokens - self.overhead_tokens) / self.tokens_per_word))

    def as_record(self) -> dict[str, Any]:
        """JSON-ready form stored in the before arm's journal header."""
        return asdict(self)

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Calibration:
        return cls(**{k: record[k] for k in ("method", "overhead_tokens", "tokens_per_word", "calibration_words")})

    @classmethod
    def from_counts(cls, method: str, empty: int, full: int, words: int = CALIBRATION_WORDS) -> Calibration:
        """From the prompt token counts of an instruction-only prompt and one with ``words`` words."""
        per_word = max((full - empty) / words, 0.05)
        return cls(method=method, overhead_tokens=empty, tokens_per_word=round(per_word, 6), calibration_words=words)


def _words(seed: int, key: str, count: int) -> str:
    digest = hashlib.sha256(f"{seed}\x00{key}".encode()).digest()
    rng = random.Random(int.from_bytes(digest[:8], "big"))
    return " ".join(rng.choices(VOCABULARY, k=count))


def calibration_text(seed: int, words: int = CALIBRATION_WORDS) -> str:
    """Body used to measure tokens per word; never sent as a timed prompt."""
    return _words(seed, "calibration", words)


def chat_messages(instruction: str, body: str) -> list[dict[str, str]]:
    """The one user message every request sends: instruction, blank line, body."""
    return [{"role": "user", "content": f"{instruction}\n\n{body}" if body else instruction}]


class PromptBook:
    """Deterministic prompt text for every request key of a trial."""

    def __init__(self, instruction: str, seed: int, calibration: Calibration, *, prefix_tokens: int | None = None, prefixes: int | None = None):
        self.instruction = instruction
        self.seed = seed
        self.calibration = calibration
        self.prefix_tokens, self.prefixes = prefix_tokens, prefixes
        self._prefix_texts: dict[int, str] = {}

    def messages(self, key: str, target_tokens: int, prefix: int | None = None) -> list[dict[str, str]]:
        """Messages for the request ``key`` sized to about ``target_tokens`` prompt tokens; with ``prefix``,
        its body opens with that shared prefix and its own words fill the rest."""
        words = self.calibration.words_for(target_tokens)
        if prefix is None:
            return chat_messages(self.instruction, _words(self.seed, key, words))
        shared = self.prefix_text(prefix)
        own = max(1, words - self.prefix_words())
        return chat_messages(self.instruction, f"{shared} {_words(self.seed, key, own)}")

    def prefix_words(self) -> int:
        """Body words of each shared prefix: with the template and instruction, about ``prefix_tokens`` tokens."""
        assert self.prefix_tokens is not None, "a prompt book without shared prefixes"
        return self.calibration.words_for(self.prefix_tokens)

    def prefix_text(self, prefix: int) -> str:
        """The words of shared prefix ``prefix`` (0 … prefixes - 1): the same in every arm."""
        if prefix not in self._prefix_texts:
            self._prefix_texts[prefix] = _words(self.seed, f"prefix/{prefix}", self.prefix_words())
        return self._prefix_texts[prefix]

    def own_tokens(self, target_tokens: int) -> float:
        """About how many tokens of a prefixed prompt of ``target_tokens`` are its own words (the suffix)."""
        own = max(1, self.calibration.words_for(target_tokens) - self.prefix_words())
        return own * self.calibration.tokens_per_word

    def unique_tokens(self, target_tokens: int) -> float:
        """About how many tokens of a prompt of ``target_tokens`` are its own words (all but the instruction)."""
        return self.calibration.words_for(target_tokens) * self.calibration.tokens_per_word

    def prefix_of(self, key: str) -> int:
        """The shared prefix request ``key`` takes: drawn from the seed and the key, so the same in every arm."""
        assert self.prefixes, "a prompt book without shared prefixes"
        digest = hashlib.sha256(f"prefix\x00{self.seed}\x00{key}".encode()).digest()
        return int.from_bytes(digest[:8], "big") % self.prefixes

    @staticmethod
    def request_seed(seed: int, key: str) -> int:
        """The sampling seed sent with request ``key``: same in every arm, differs per request."""
        digest = hashlib.sha256(f"seed\x00{seed}\x00{key}".encode()).digest()
        return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF
