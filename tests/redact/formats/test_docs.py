"""docs/redaction-formats.md is generated from the registry where it is reference, and its example runs."""

from __future__ import annotations

import contextlib
import io
import re

from evidence_kit.redact.formats import READERS
from evidence_kit.redact.formats.docs import BEGIN, END, reference

from ...conftest import REPO

PAGE = REPO / "docs" / "redaction-formats.md"


def test_the_reference_is_what_the_registry_generates() -> None:
    text = PAGE.read_text(encoding="utf-8")
    generated = text[text.index(BEGIN) : text.index(END) + len(END)]
    assert generated == reference(), "docs/redaction-formats.md drifted: run python -m evidence_kit.redact.formats.docs docs/redaction-formats.md"


def test_the_reference_names_every_reader_and_every_field() -> None:
    generated = reference()
    for reader in READERS:
        assert f"### `{reader.name}`" in generated and reader.summary in generated
    for path in ("`settings.kv_cache_dtype` | as is", "`model_path` | pseudonym (`path`)", "`gpus[].uuid` | pseudonym (`gpu`)", "`api_key` | never"):
        assert path in generated, path


def test_the_example_prints_what_the_page_says() -> None:
    text = PAGE.read_text(encoding="utf-8")
    code, printed = re.findall(r"```(?:python|text)\n(.*?)```", text, re.S)[:2]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(PAGE), "exec"), {})  # noqa: S102 (the page's own example)
    assert out.getvalue() == printed
