"""Read the small JSON and TOML files of the contract into models, with located errors."""

from __future__ import annotations

import datetime as dt
import json
import re
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..errors import BadInput, ManyProblems
from .validation import line_of_key, validation_problems

__all__ = ["read_bytes", "read_text", "read_json_model", "read_toml_model"]

M = TypeVar("M", bound=BaseModel)
# The line of the field at a location in a document's text, or None.
Locator = Callable[[str, Sequence[Any]], "int | None"]


def read_bytes(path: Path) -> bytes:
    """The file's bytes, or a :class:`BadInput` naming it."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise BadInput("file not found", path) from None
    except IsADirectoryError:
        raise BadInput("is a folder, expected a file", path) from None
    except OSError as err:
        raise BadInput(f"cannot read ({err.strerror})", path) from None


def read_text(path: Path) -> str:
    """The file's text, or a :class:`BadInput` naming it."""
    data = read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise BadInput(f"not UTF-8 text (byte 0x{data[err.start]:02x} at column {column})", path, line) from None


def _validate(model: type[M], data: object, path: Path, text: str, locate: Locator) -> M:
    """``data`` as ``model``, or every problem at once, each at its line (in the file's order)."""
    try:
        return model.model_validate(data)
    except ValidationError as err:
        problems = [BadInput(message, path, locate(text, loc)) for message, loc in validation_problems(err)]
        problems.sort(key=lambda p: (p.line is None, p.line or 0))
        raise ManyProblems.of(problems) from None


def _json_line(text: str, loc: Sequence[Any]) -> int | None:
    return line_of_key(text, loc)


def _toml_line(text: str, loc: Sequence[Any]) -> int | None:
    return line_of_key(text, loc, toml=True)


def read_json_model(path: Path, model: type[M]) -> M:
    """Parse a JSON file and validate it against ``model``."""
    text = read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise BadInput(f"not valid JSON ({err.msg})", path, err.lineno) from None
    except RecursionError:
        raise BadInput("JSON nested too deeply", path) from None
    except ValueError as err:  # an integer of more digits than Python converts
        raise BadInput(f"not valid JSON ({err})", path) from None
    if not isinstance(data, dict):
        raise BadInput("must hold a JSON object", path, 1)
    return _validate(model, data, path, text, _json_line)


def _dates_as_text(value: object) -> object:
    """TOML's bare dates become ISO text, so ``date = 2026-11-01`` reads like ``"2026-11-01"``."""
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: _dates_as_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_dates_as_text(v) for v in value]
    return value


def read_toml_model(path: Path, model: type[M], *, locate: Locator = _toml_line) -> M:
    """Parse a TOML file and validate it against ``model``; ``locate`` finds each problem's line."""
    text = read_text(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        match = re.search(r"\(at line (\d+), column \d+\)", str(err))
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(err))
        raise BadInput(f"not valid TOML ({message})", path, int(match.group(1)) if match else None) from None
    except RecursionError:
        raise BadInput("TOML nested too deeply", path) from None
    try:
        plain = _dates_as_text(data)
    except RecursionError:
        raise BadInput("TOML nested too deeply", path) from None
    return _validate(model, plain, path, text, locate)
