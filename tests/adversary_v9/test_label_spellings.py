"""Adversary v9: a labelled secret (``api_key``, ``password``) as more real tools write it.

A secret with no shape of its own (``token-abc123``, vLLM's documented example key) is found only by its label.
These spellings hid it: vLLM's own log of its arguments, a dict whose ``api_key`` is a list
(``'api_key': ['…']``, as vLLM has taken several keys), Ruby's and Perl's ``=>`` and PHP's ``print_r``.
Once found, the value is learnt, so it goes wherever else it stands alone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence_kit.redact import known_values_from_raw, redact_bundle, scan_tree
from evidence_kit.redact.detectors import find_labelled
from tests.redact import corpus
from tests.redact.conftest import KEY
from tests.redact.test_leak_classes import _texts, plant

SECRET = "token-qzv81kdwpx"

SPELLINGS = {
    "vllm-args": f"INFO 12-02 02:00:00 [api_server.py:1885] vLLM API server version 0.11.1\n"
    f"INFO 12-02 02:00:00 [utils.py:233] non-default args: {{'model': 'x', 'api_key': ['{SECRET}']}}\n",
    "rails": f'Parameters: {{"api_key"=>"{SECRET}", "n"=>"1"}}\n',
    "ruby34": f'params: {{"api_key" => "{SECRET}"}}\n',
    "perl": f"$VAR1 = {{\n          'password' => '{SECRET}',\n        }};\n",
    "php": f"Array\n(\n    [api_key] => {SECRET}\n)\n",
}


@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_a_labelled_secret_is_found_and_redacted_however_written(tmp_path: Path, name: str) -> None:
    content = SPELLINGS[name] + f"retrying with {SECRET}\n"
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/client.log": content})
    assert [f for f in scan_tree(raw) if f.file == "logs/client.log" and f.cls == "token"]
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    assert SECRET not in _texts(result.out)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("password=[]", None),  # an empty list holds nothing
        ("'api_key': [None]", None),  # a public word in a list, as before
        ("api_key => abc", "abc"),
        ("password: [redacted-by-ops]", "redacted-by-ops"),
        ("[hostname] => c256", "c256"),
        ("x = a[d] + b", None),  # no JWK member: a short value, and no separator after [d]
    ],
)
def test_what_the_new_separators_take_and_leave(text: str, value: str | None) -> None:
    found = [text[a:b] for a, b, _ in find_labelled(text)]
    assert found == ([value] if value else [])


@pytest.mark.parametrize(
    ("rel", "content", "kept"),
    [
        # kubectl get pod -o json: the engine's environment, a name and a value as two members of an object
        (
            "logs/pod.json",
            json.dumps({"spec": {"containers": [{"env": [{"name": "VLLM_API_KEY", "value": SECRET}, {"name": "PORT", "value": "8000"}]}]}}, indent=2),
            '"value": "8000"',
        ),
        # a browser's HAR export: a request header
        (
            "logs/session.har",
            json.dumps(
                {
                    "log": {
                        "entries": [
                            {"request": {"headers": [{"name": "X-Api-Key", "value": SECRET}, {"name": "Accept", "value": "application/json"}]}}
                        ]
                    }
                }
            ),
            "application/json",
        ),
        ("logs/events.jsonl", json.dumps({"event": "env", "name": "OPENAI_API_KEY", "value": SECRET}) + "\n", '"event": "env"'),
    ],
)
def test_a_secret_given_as_a_named_value_is_redacted(tmp_path: Path, rel: str, content: str, kept: str) -> None:
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={rel: content, "logs/client.log": f"key {SECRET}\n"})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    out = _texts(result.out)
    assert SECRET not in out
    assert kept in out


PLACEHOLDERS = {
    "logs/client.env": "OPENAI_API_KEY=EMPTY\nHF_TOKEN=<redacted>\n",  # vLLM's documented stand-in for no key
    "logs/rails.log": 'Parameters: {"password"=>"[FILTERED]", "api_key"=>"[FILTERED]"}\n',  # Rails' filter
    "logs/masked.log": "password: REDACTED; secret=******; api_key: placeholder; client_secret: hidden\n",
    "logs/client.json": '{"api_key": "EMPTY", "max_retries": 2}\n',
}


def test_a_placeholder_after_a_label_is_no_secret_and_the_site_can_still_be_built(tmp_path: Path) -> None:
    """A labelled secret is learnt and hunted everywhere, the site included. A placeholder learnt so (vLLM's
    EMPTY, a logger's REDACTED) is a word the site's own style sheet, search box and schemas hold
    (``.ek-vega:empty``, ``placeholder="Search"``, "Redacted by evidence-kit"): every build failed closed."""
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files=PLACEHOLDERS)
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    for rel, content in PLACEHOLDERS.items():
        assert (result.out / rel).read_text() == content
    known = known_values_from_raw(raw)
    assert not [
        v for v in known if v.cls == "token" and v.value.strip("[]<>*").lower() in {"empty", "filtered", "redacted", "placeholder", "hidden", ""}
    ]
    page = tmp_path / "page"
    page.mkdir()
    (page / "extra.css").write_text(".md-typeset .ek-vega:empty { display: none; }\n")
    (page / "index.html").write_text('<input placeholder="Search"><p>Redacted by evidence-kit; hidden</p>\n')
    assert scan_tree(page, known_values=known) == []
