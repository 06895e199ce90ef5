"""Reading evidence from disk: journals (streamed), telemetry series, contract files, bundles, decisions."""

from .completed import require_completed
from .files import read_json_model, read_text, read_toml_model
from .journal import JournalReader, parse_record
from .load import load_any, load_decision, load_trial, read_arm
from .telemetry import parse_sample, read_telemetry

__all__ = [
    "JournalReader",
    "load_any",
    "load_decision",
    "load_trial",
    "parse_record",
    "parse_sample",
    "read_arm",
    "read_json_model",
    "read_telemetry",
    "read_text",
    "read_toml_model",
    "require_completed",
]
