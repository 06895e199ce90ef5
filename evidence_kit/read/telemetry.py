"""Read an arm's telemetry series (``telemetry/<journal name>``) into typed samples."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from ..errors import BadInput
from ..model.telemetry import TelemetrySample
from .validation import describe_validation_error

__all__ = ["parse_sample", "read_telemetry"]


_VALIDATE_JSON = TelemetrySample.__pydantic_validator__.validate_json  # the compiled validator, without the model's wrapper


def parse_sample(raw: bytes) -> TelemetrySample | None:
    """One telemetry line as a sample; ``None`` for a line of another ``type`` (the contract allows
    them; only samples are read). Raises :class:`BadInput` without location."""
    try:
        sample: TelemetrySample = _VALIDATE_JSON(raw)  # the common line, parsed and checked at once
        return sample
    except ValidationError:
        pass  # another type, or a bad sample: said below
    try:
        record = json.loads(raw)
    except ValueError as err:
        raise BadInput(f"telemetry line is not valid JSON ({err})") from None
    if not isinstance(record, dict):
        raise BadInput("a telemetry line must be a JSON object")
    if record.get("type") != "sample":
        return None
    try:
        return TelemetrySample.model_validate(record)
    except ValidationError as err:
        raise BadInput(f"telemetry sample: {describe_validation_error(err)[0]}") from None


def read_telemetry(path: Path) -> list[TelemetrySample] | None:
    """The samples of an arm's telemetry series, or ``None`` when it has none."""
    if not path.is_file():
        return None
    samples: list[TelemetrySample] = []
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                sample = parse_sample(raw)
            except BadInput as err:
                raise err.located(path, number) from None
            if sample is not None:
                samples.append(sample)
    return samples
