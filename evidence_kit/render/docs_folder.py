"""The docs folder of a site: every generated file, and ``mkdocs.yml``, rendered in memory.

:func:`docs_files` is what ``build`` writes under ``SITE/site/`` (and ``SITE/mkdocs.yml``)
and what ``verify`` regenerates to compare with a published site, so both use
this one rendering. Nothing here writes to disk.

Layout of a built site folder ``SITE`` (the same as this repository's root)::

    SITE/mkdocs.yml   generated MkDocs configuration (docs_dir: site, site_dir: public)
    SITE/site/        generated Markdown, charts, chart data and copies of the evidence
    SITE/public/      the HTML site; public/manifest.json lists every file in it
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jinja2

from ..analyze import DEFINITIONS, Analysis
from ..canonical import canonical_json
from ..model.evidence import DecisionEvidence
from ..schemas import schemas
from ..version import __version__
from .charts import VEGA_SCRIPT, trial_charts, vendored_script
from .escape import Markup, html_text, yaml_string
from .layout import CONFIG_NAME, SITE_NAME
from .markdown import TEMPLATES, environment, link, render
from .pages import DrawCharts, decision_files

__all__ = ["docs_files", "methodology_page", "asset_files", "mkdocs_config"]


def _badges(analysis: Analysis) -> Markup:
    outcome = analysis.decision.outcome
    text = f'<span class="ek-badge ek-badge-{outcome}">{outcome}</span>'
    if analysis.decision.simulated:
        text += ' <span class="ek-badge ek-badge-simulated">simulated</span>'
    return Markup(text)


def methodology_page(env: jinja2.Environment, analyses: Sequence[Analysis] = ()) -> bytes:
    """``methodology.md``: the words and the statistics' definitions (``analyze.DEFINITIONS``; statistics v4's
    where a decision declares it)."""
    definitions = max((a.definitions for a in analyses), key=lambda d: d["version"], default=DEFINITIONS)
    return render(
        env,
        "site/methodology.md.j2",
        definitions=definitions,
        definition_rows=[[k.replace("_", " "), v] for k, v in sorted(definitions.items()) if k != "version"],
    )


def asset_files() -> dict[str, bytes]:
    """``assets/``: the site's own script and styles, and the vendored Vega bundle the charts draw with."""
    files = {f"assets/{asset}": (TEMPLATES / "assets" / asset).read_bytes() for asset in ("charts.js", "extra.css")}
    files[f"assets/{VEGA_SCRIPT}"] = vendored_script()
    return files


def mkdocs_config(env: jinja2.Environment, rows: list[dict[str, Any]]) -> bytes:
    """The generated ``mkdocs.yml`` of a site whose navigation lists ``rows`` (one per decision)."""
    return render(
        env,
        "mkdocs.yml.j2",
        decisions=rows,
        version=__version__,
        vega_script=VEGA_SCRIPT,
        site_name=Markup(yaml_string(SITE_NAME)),
    )


def docs_files(loaded: list[tuple[DecisionEvidence, Analysis]], *, draw: DrawCharts = trial_charts) -> dict[str, bytes]:
    """Every file of the docs folder, and ``../mkdocs.yml`` under the key ``mkdocs.yml``; ``draw`` draws
    each trial's charts (:class:`.chart_cache.ChartCache` reads back the ones drawn before)."""
    env = environment()
    files: dict[str, bytes] = {}
    rows = []
    for evidence, analysis in loaded:
        files.update({f"site/{k}": v for k, v in decision_files(evidence, analysis, env, draw=draw).items()})
        did = analysis.decision.id
        rows.append(
            {
                "id": did,
                "nav_title": Markup(yaml_string(html_text(evidence.decision.title))),
                "cells": [
                    evidence.decision.date,
                    link(evidence.decision.title, f"decisions/{did}/index.md"),
                    _badges(analysis),
                    "; ".join(f"{t.trial_id} {t.timed_ok}/{t.timed_planned} timed requests" for t in analysis.trials),
                ],
            }
        )
    files["site/index.md"] = render(env, "site/index.md.j2", decision_rows=[r["cells"] for r in rows])
    files["site/methodology.md"] = methodology_page(env, [a for _, a in loaded])
    files["site/how-to-verify.md"] = render(env, "site/how-to-verify.md.j2", decisions=rows, version=__version__)
    schema_rows = []
    for name, body in sorted(schemas().items()):
        files[f"site/schemas/{name}.schema.json"] = canonical_json(body)
        schema_rows.append([name, link(f"{name}.schema.json", f"{name}.schema.json")])
    files["site/schemas/index.md"] = render(env, "site/schemas.md.j2", schema_rows=schema_rows)
    files.update({f"site/{rel}": data for rel, data in asset_files().items()})
    files[CONFIG_NAME] = mkdocs_config(env, rows)
    return files
