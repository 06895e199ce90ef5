"""Every generated file of a site, rendered in memory: pages, charts, chart data, evidence copies.

``build`` writes what this renders and ``verify`` renders it again to compare,
so the site and the auditor share one rendering, as they share ``analyze``.
:mod:`evidence_kit.present` words the figures (as it does for the terminal),
:mod:`.chart_data` and :mod:`.charts` draw them, :mod:`.markdown` holds the
escaping template environment, :mod:`.pages` renders a decision,
:mod:`.docs_folder` the whole docs folder and ``mkdocs.yml``,
:mod:`.evidence_copy` lists the evidence a decision publishes and
:mod:`.mkdocs_build` runs MkDocs. :mod:`.article` renders a page's Markdown as
MkDocs does (the auditor reads the text a page should show from it), and
:mod:`.toolchain` names the versions a site's bytes depend on. No arithmetic and
no verdicts: every number and every verdict comes from
:func:`evidence_kit.analyze.analyze`.
"""

from .docs_folder import OWNED, SITE_NAME, docs_files, order_decisions

__all__ = ["OWNED", "SITE_NAME", "docs_files", "order_decisions"]
