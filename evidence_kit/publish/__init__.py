"""The site generator: decision pages, linked evidence pages and charts as an offline MkDocs site.

``build_site(folders, out)`` is the whole pipeline (see :mod:`.site` for the
folder layout); the modules below it each do one stage and write nothing:
:mod:`.decision_rows` words the figures, :mod:`.chart_data` and :mod:`.charts` draw
them, :mod:`.pages` renders a decision, :mod:`.mkdocs_build` runs MkDocs and
:mod:`.safety` scans the result. ``publish`` does no arithmetic: every number
comes from :func:`evidence_kit.analyze.analyze`.
"""

from .site import OWNED, BuildResult, build_site, docs_files, load_decisions

__all__ = ["BuildResult", "OWNED", "build_site", "docs_files", "load_decisions"]
