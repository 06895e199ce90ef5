"""The simulator's deterministic tokenizer: exact counts, exact round trip.

Text is split into pre-tokens (a chat special, an optional space plus a run of letters, an
optional space plus one other ASCII character, or one non-ASCII character). A letter run that
is a vocabulary word is one token; any other letter run is split into chunks of up to three
letters, each one token; non-ASCII characters become one token per UTF-8 byte. Every id maps
back to exactly its text, so ``decode(encode(text)) == text`` for any text, and a client can
size a prompt to the token with ``/tokenize``.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

__all__ = ["Tokenizer", "TOKENIZER", "WORDS", "SPECIALS", "render_chat"]

# The words the simulated model "speaks" (each one token, with or without a leading space).
WORDS: tuple[str, ...] = tuple(
    """
the of and to in is that for it as with was on be by this are from at or an have not which
but can all were one their there has more when will would if so about what been other some into
than its only time two over also new like very after could these may first any them most made
through where before well between under same each such then many those both because model token
cache layout request latency queue batch prefill decode draft accept speculation slot block memory
engine server stream reasoning content answer summary result value signal budget context input
output length window trial control candidate original restored median measure record evidence
check gate stable steady quick careful simple short clear plain useful small large fixed natural
step path route plan report note line page field count total rate ratio share pool limit
thinking consider compare weigh decide option first second third next final therefore because
however although whereas since given assume suppose notice observe confirm verify estimate
""".split()
)

SPECIALS: tuple[str, ...] = ("<|im_start|>", "<|im_end|>", "<|endoftext|>")

_BYTE_BASE = 0  # 0..255: one UTF-8 byte each
_SPECIAL_BASE = 256  # chat specials
_ASCII_BASE = 1000  # 1000 + 2*ord(c) + leading-space flag
_WORD_BASE = 2000  # 2000 + 2*index + leading-space flag
_CHUNK_BASE = 100_000  # 100000 + 2*chunk_code + leading-space flag
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LETTER_INDEX = {c: i for i, c in enumerate(_LETTERS)}
_WORD_INDEX = {w: i for i, w in enumerate(WORDS)}
_CHUNK_OFFSETS = (0, 52, 52 + 52**2)  # codes of 1-, 2- and 3-letter chunks start here

_PRETOKEN = re.compile("|".join(re.escape(s) for s in SPECIALS) + r"| ?[A-Za-z]+| ?[\x21-\x7e]|[\x00-\x7f]|[^\x00-\x7f]")


def _chunk_code(chunk: str) -> int:
    value = 0
    for char in chunk:
        value = value * 52 + _LETTER_INDEX[char]
    return _CHUNK_OFFSETS[len(chunk) - 1] + value


def _chunk_text(code: int) -> str:
    length = 3 if code >= _CHUNK_OFFSETS[2] else 2 if code >= _CHUNK_OFFSETS[1] else 1
    value = code - _CHUNK_OFFSETS[length - 1]
    chars = []
    for _ in range(length):
        value, index = divmod(value, 52)
        chars.append(_LETTERS[index])
    return "".join(reversed(chars))


@lru_cache(maxsize=65536)
def _encode_pretoken(piece: str) -> tuple[int, ...]:
    if piece in SPECIALS:
        return (_SPECIAL_BASE + SPECIALS.index(piece),)
    space = 1 if piece.startswith(" ") and len(piece) > 1 else 0
    body = piece[space:]
    if body.isascii() and body.isalpha():
        if body in _WORD_INDEX:
            return (_WORD_BASE + 2 * _WORD_INDEX[body] + space,)
        ids = []
        for start in range(0, len(body), 3):
            flag = space if start == 0 else 0
            ids.append(_CHUNK_BASE + 2 * _chunk_code(body[start : start + 3]) + flag)
        return tuple(ids)
    if len(body) == 1 and body.isascii():
        return (_ASCII_BASE + 2 * ord(body) + space,)
    return tuple(_BYTE_BASE + b for b in body.encode("utf-8"))


class Tokenizer:
    """Encode text to ids and back; ``decode(encode(t)) == t`` for every string ``t``."""

    vocab_size = _CHUNK_BASE + 2 * (_CHUNK_OFFSETS[2] + 52**3)

    def encode(self, text: str) -> list[int]:
        ids: list[int] = []
        for match in _PRETOKEN.finditer(text):
            ids.extend(_encode_pretoken(match.group()))
        return ids

    def count(self, text: str) -> int:
        return len(self.encode(text))

    def token_text(self, token_id: int) -> str:
        """The text of one id (a lone byte id of a multi-byte character decodes with U+FFFD)."""
        return self.decode([token_id])

    def decode(self, ids: list[int]) -> str:
        parts: list[str] = []
        pending = bytearray()
        for token_id in ids:
            if not isinstance(token_id, int) or not 0 <= token_id < self.vocab_size:
                raise ValueError(f"token id {token_id!r} is not in the vocabulary")
            if token_id < _SPECIAL_BASE:
                pending.append(token_id)
                continue
            if pending:
                parts.append(pending.decode("utf-8", errors="replace"))
                pending.clear()
            parts.append(self._text(token_id))
        if pending:
            parts.append(pending.decode("utf-8", errors="replace"))
        return "".join(parts)

    @staticmethod
    def _text(token_id: int) -> str:
        if token_id < _ASCII_BASE:
            index = token_id - _SPECIAL_BASE
            if index >= len(SPECIALS):
                raise ValueError(f"token id {token_id} is not in the vocabulary")
            return SPECIALS[index]
        if token_id < _WORD_BASE:
            code, space = divmod(token_id - _ASCII_BASE, 2)
            if code >= 128:
                raise ValueError(f"token id {token_id} is not in the vocabulary")
            return " " * space + chr(code)
        if token_id < _CHUNK_BASE:
            index, space = divmod(token_id - _WORD_BASE, 2)
            if index >= len(WORDS):
                raise ValueError(f"token id {token_id} is not in the vocabulary")
            return " " * space + WORDS[index]
        code, space = divmod(token_id - _CHUNK_BASE, 2)
        return " " * space + _chunk_text(code)


TOKENIZER = Tokenizer()


def _message_text(content: object) -> str:
    """A message's text: a string, or the text parts of a list of content parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content)


def render_chat(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> str:
    """The chat template: ChatML-style turns, tools listed in a system turn, generation prompt last."""
    turns: list[str] = []
    if tools:
        listing = json.dumps(tools, sort_keys=True, separators=(",", ":"))
        turns.append(f"<|im_start|>system\n# Tools\n{listing}<|im_end|>\n")
    for message in messages:
        role = str(message.get("role", "user"))
        text = _message_text(message.get("content"))
        for call in message.get("tool_calls") or []:
            function = call.get("function", {}) if isinstance(call, dict) else {}
            text += f"\n<tool_call>{function.get('name', '')} {function.get('arguments', '')}</tool_call>"
        turns.append(f"<|im_start|>{role}\n{text}<|im_end|>\n")
    turns.append("<|im_start|>assistant\n")
    return "".join(turns)
