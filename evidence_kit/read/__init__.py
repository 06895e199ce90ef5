"""Reading evidence from disk: journals (streamed), contract files, bundles, decisions."""

from .files import read_json_model, read_text, read_toml_model
from .journal import JournalReader, parse_record
from .load import load_any, load_decision, load_trial, read_arm

__all__ = [
    "JournalReader",
    "load_any",
    "load_decision",
    "load_trial",
    "parse_record",
    "read_arm",
    "read_json_model",
    "read_text",
    "read_toml_model",
]
