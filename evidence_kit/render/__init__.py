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

from typing import TYPE_CHECKING, Any

from .layout import OWNED, SITE_NAME, order_decisions

if TYPE_CHECKING:
    from .docs_folder import docs_files


def __getattr__(name: str) -> Any:
    # The renderer (Jinja2, the templates) is imported on first use: ``verify`` of a decision folder reads
    # the layout's names from this package and renders nothing.
    if name == "docs_files":
        from .docs_folder import docs_files

        return docs_files
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["OWNED", "SITE_NAME", "docs_files", "order_decisions"]
