"""The contract's documentation cannot drift from the code: the committed JSON Schemas are what
the models generate, every field of every model is named in docs/contract.md, the plan's page
names every plan field with its default, and README.md and docs/ link only inside the repository."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import pytest
from pydantic import BaseModel

from evidence_kit.canonical import canonical_json
from evidence_kit.collect.plan import ArmPlan, GatePlan, Plan, PlanWorkload, TelemetryPlan
from evidence_kit.model import ClientBounds, DecisionRule
from evidence_kit.schemas import MODELS, schemas

from .conftest import REPO

DOCS = REPO / "docs"
CONTRACT = (DOCS / "contract.md").read_text()
PLAN_DOC = (DOCS / "plan-file.md").read_text()
REGENERATE = "evidence-kit schema --out docs/schemas"


def test_docs_schemas_are_what_the_models_generate() -> None:
    want = {f"{name}.schema.json": canonical_json(body) for name, body in schemas().items()}
    have = {p.name: p.read_bytes() for p in (DOCS / "schemas").iterdir()}
    stale = sorted(name for name in set(want) | set(have) if want.get(name) != have.get(name))
    assert not stale, f"docs/schemas/ differs from the models ({', '.join(stale)}): run `{REGENERATE}`"


def test_contract_links_every_schema() -> None:
    for name in schemas():
        assert f"(schemas/{name}.schema.json)" in CONTRACT, name


def _models_in(annotation: object) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for arg in get_args(annotation):
        yield from _models_in(arg)


def _contract_models() -> list[type[BaseModel]]:
    """Every model of every schema, and every model inside them, in the order first met."""
    seen: list[type[BaseModel]] = []
    todo = [m for root in MODELS.values() for m in _models_in(root)]
    while todo:
        model = todo.pop(0)
        if model not in seen:
            seen.append(model)
            todo += [m for field in model.model_fields.values() for m in _models_in(field.annotation)]
    return seen


def _sections(text: str, name: str) -> list[str]:
    """Each part of ``text`` under a heading that names ``name`` in backticks, up to the next heading."""
    out = []
    for match in re.finditer(rf"(?m)^#+ .*`{re.escape(name)}`.*$", text):
        following = re.search(r"(?m)^#", text[match.end() :])
        out.append(text[match.end() : match.end() + following.start() if following else len(text)])
    return out


@pytest.mark.parametrize("model", _contract_models(), ids=lambda m: m.__name__)
def test_every_field_is_named_in_its_section_of_contract_md(model: type[BaseModel]) -> None:
    sections = _sections(CONTRACT, model.__name__)
    assert sections, f"docs/contract.md has no heading naming `{model.__name__}`"
    text = "".join(sections)
    missing = [field.alias or name for name, field in model.model_fields.items() if f"`{field.alias or name}`" not in text]
    assert not missing, f"docs/contract.md does not name {missing} under its `{model.__name__}` heading"


def _table(section: str) -> tuple[list[str], dict[str, list[str]]]:
    """The first table of ``section``: its header cells, and key -> cells of each row (a row naming
    several keys, ``routed_url``, ``routed_model``, counts for each)."""
    lines = [line.strip() for line in section.splitlines() if line.strip().startswith("|")]
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in lines]
    if not cells:
        return [], {}
    rows = {key: row for row in cells[2:] for key in re.findall(r"`([a-z][a-z0-9_]*)`", row[0])}
    return cells[0], rows


def _default_as_documented(cell: str) -> Any:
    if cell in ("required", "none"):
        return cell
    try:
        return json.loads(cell.strip("`"))
    except ValueError:
        return cell.strip("`")


PLAN_SECTIONS = {
    PlanWorkload: "[workload]",
    GatePlan: "[gates]",
    TelemetryPlan: "[telemetry]",
    ArmPlan: "[arms.<name>]",
    DecisionRule: "[decision_rule]",
    ClientBounds: "[client]",
}


@pytest.mark.parametrize("model", list(PLAN_SECTIONS), ids=lambda m: m.__name__)
def test_plan_file_documents_every_key_with_its_default(model: type[BaseModel]) -> None:
    sections = _sections(PLAN_DOC, PLAN_SECTIONS[model])
    assert len(sections) == 1, f"docs/plan-file.md has no section `{PLAN_SECTIONS[model]}`"
    header, rows = _table(sections[0])
    for name, field in model.model_fields.items():
        where = f"docs/plan-file.md {PLAN_SECTIONS[model]} {name}"
        assert f"`{name}`" in sections[0], f"{where} is not documented"
        if "default" not in header:
            continue  # a section in prose ([decision_rule]: trial.json's rule, contract.md)
        assert name in rows, f"{where} has no row in the table"
        documented = _default_as_documented(rows[name][header.index("default")])
        if field.is_required():
            assert documented == "required", f"{where}: documented default {documented!r}, but it is required"
        elif field.default_factory is not None:
            assert documented == field.default_factory(), where  # type: ignore[call-arg]
        elif field.default is None:
            assert isinstance(documented, str), where  # "none", or what none means ({base_url}/v1/models)
        else:
            assert documented == field.default, f"{where}: documented default {documented!r}, model {field.default!r}"


def test_plan_file_documents_every_top_level_key() -> None:
    top = PLAN_DOC.split("## Top level", 1)[1].split("\n## ", 1)[0]
    for name in Plan.model_fields:
        as_row = f"| `{name}` |" in top
        as_section = re.search(rf"(?m)^## `\[{re.escape(name)}[.\]]", PLAN_DOC) is not None
        assert as_row or as_section, f"docs/plan-file.md documents no top-level key {name}"


def _links(text: str) -> Iterator[str]:
    """Markdown link targets (inline and reference-style), outside fenced code blocks."""
    prose = re.sub(r"(?ms)^```.*?^```", "", text)
    yield from re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", prose)
    yield from re.findall(r"(?m)^\s*\[[^\]]+\]:\s*(\S+)", prose)


def _leaves_repository(doc: Path, target: str) -> str | None:
    """Why ``target`` (a link or a path written in ``doc``) is not inside the repository, or None.
    The README and the docs link only inside the repository: a public standard is named, not linked."""
    if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):
        return f"a {target.split(':', 1)[0]}: link"
    path = target.split("#", 1)[0]
    if not path:
        return None  # an anchor in the same page
    if path.startswith("/"):
        return "an absolute path"
    resolved = (doc.parent / path).resolve()
    if not resolved.is_relative_to(REPO):
        return "a path outside the repository"
    return None if resolved.exists() else "a path to nothing"


DOCUMENTS = [REPO / "README.md", *sorted(DOCS.glob("*.md"))]


@pytest.mark.parametrize("doc", DOCUMENTS, ids=lambda p: p.relative_to(REPO).as_posix())
def test_readme_and_docs_link_only_inside_the_repository(doc: Path) -> None:
    text = doc.read_text()
    problems = [f"{target}: {why}" for target in _links(text) if (why := _leaves_repository(doc, target))]
    # A path written out rather than linked (`../shared/spec/...`) leaves the repository too.
    for path in re.findall(r"(?<![\w./-])((?:\.\./)+[\w.@-][\w./@-]*)", text):
        if why := _leaves_repository(doc, path):
            problems.append(f"{path}: {why}")
    assert not problems, f"{doc.relative_to(REPO)} leaves the repository: {problems}"
