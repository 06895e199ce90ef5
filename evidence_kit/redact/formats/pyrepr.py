"""Read the Python ``repr`` text vLLM logs its settings in, without evaluating anything.

vLLM logs ``non-default args: {'model': '/m', 'max_model_len': 1024, ...}`` (a dict's repr) and
``with config: model='/m', dtype=torch.bfloat16, speculative_config=SpeculativeConfig(method='ngram',
...), ...`` (``key=value`` pairs whose values are reprs, enum reprs ``<CompilationMode.X: 2>`` or bare
words). This reads both into plain data: quoted strings as ``str``, bare words as :class:`Bare`,
dicts, lists, tuples and calls (``Name(k=v)`` as a dict). Text it cannot read ends what it reads:
the pairs read before it are kept. Depth and length are bounded by the line it is given.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Bare", "parse_pairs", "parse_value"]

_MAX_DEPTH = 32
_CLOSE = {"{": "}", "[": "]", "(": ")"}


class Bare(str):
    """An unquoted word of the text: ``None``, ``True``, ``1024``, ``torch.bfloat16``, ``tiny``."""


class _Stop(Exception):
    pass


class _Reader:
    def __init__(self, text: str) -> None:
        self.text, self.at = text, 0

    def _skip(self) -> None:
        while self.at < len(self.text) and self.text[self.at] in " \t":
            self.at += 1

    def _peek(self) -> str:
        self._skip()
        return self.text[self.at] if self.at < len(self.text) else ""

    def _expect(self, char: str) -> None:
        if self._peek() != char:
            raise _Stop
        self.at += 1

    def string(self) -> str:
        quote, out = self.text[self.at], []
        self.at += 1
        while self.at < len(self.text):
            char = self.text[self.at]
            if char == "\\" and self.at + 1 < len(self.text):
                out.append(self.text[self.at + 1])
                self.at += 2
                continue
            self.at += 1
            if char == quote:
                return "".join(out)
            out.append(char)
        raise _Stop

    def bare(self, stops: str) -> Bare:
        start, depth = self.at, 0
        while self.at < len(self.text):
            char = self.text[self.at]
            if char == "<":
                depth += 1
            elif char == ">" and depth:
                depth -= 1
            elif depth == 0 and char in stops:
                break
            self.at += 1
        word = self.text[start : self.at].strip()
        if not word:
            raise _Stop
        return Bare(word)

    def value(self, stops: str, depth: int) -> Any:
        if depth > _MAX_DEPTH:
            raise _Stop
        char = self._peek()
        if char in ("'", '"'):
            return self.string()
        if char in _CLOSE:
            return self.items(char, depth + 1)
        word = self.bare(stops + "([{")
        if self._peek() == "(":  # a call: Name(k=v, ...), read as its keyword arguments
            self.at += 1
            return self.pairs(")", depth + 1)
        return word

    def items(self, opener: str, depth: int) -> Any:
        closer = _CLOSE[opener]
        self.at += 1
        keyed, out_dict, out_list = opener == "{", {}, []
        while self._peek() != closer:
            if self._peek() == "":
                raise _Stop
            item = self.value(":," + closer if keyed else "," + closer, depth)
            if keyed:
                self._expect(":")
                out_dict[str(item)] = self.value("," + closer, depth)
            else:
                out_list.append(item)
            if self._peek() == ",":
                self.at += 1
        self.at += 1
        return out_dict if keyed else out_list

    def pairs(self, closer: str, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        while self._peek() not in ("", closer):
            key = self.bare("=," + closer)
            if self._peek() != "=":
                raise _Stop
            self.at += 1
            out[str(key)] = self.value("," + closer, depth)
            if self._peek() == ",":
                self.at += 1
        if closer:
            self._expect(closer)
        return out


def parse_value(text: str) -> Any:
    """One repr value (a dict, a list, a string, a word), or ``None`` when the text is not one."""
    reader = _Reader(text)
    try:
        return reader.value("", 0)
    except (_Stop, RecursionError):
        return None


def parse_pairs(text: str) -> dict[str, Any]:
    """``key=value, key=value`` pairs: every pair read before the first that cannot be."""
    reader = _Reader(text)
    out: dict[str, Any] = {}
    try:
        while reader._peek():
            key = reader.bare("=,")
            if reader._peek() != "=":
                return out
            reader.at += 1
            out[str(key)] = reader.value(",", 0)
            if reader._peek() == ",":
                reader.at += 1
    except (_Stop, RecursionError):
        pass
    return out
