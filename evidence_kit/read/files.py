"""Read the small JSON and TOML files of the contract into models, with located errors."""

from __future__ import annotations

import datetime as dt
import json
import re
import tomllib
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from ..errors import BadInput
from .validation import describe_validation_error, line_of_key

__all__ = ["read_bytes", "read_text", "read_json_model", "read_toml_model"]

M = TypeVar("M", bound=BaseModel)


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
        raise BadInput(f"not UTF-8 text (byte {err.start})", path) from None


def _validate(model: type[M], data: object, path: Path, text: str, *, toml: bool) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as err:
        message, loc = describe_validation_error(err)
        raise BadInput(message, path, line_of_key(text, loc, toml=toml)) from None


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
    return _validate(model, data, path, text, toml=False)


def _dates_as_text(value: object) -> object:
    """TOML's bare dates become ISO text, so ``date = 2026-11-01`` reads like ``"2026-11-01"``."""
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: _dates_as_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_dates_as_text(v) for v in value]
    return value


def read_toml_model(path: Path, model: type[M]) -> M:
    """Parse a TOML file and validate it against ``model``."""
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
    return _validate(model, plain, path, text, toml=True)
