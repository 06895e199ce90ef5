"""The site builder: decision folders in, an offline, scanned, optionally signed MkDocs site out.

``build_site(folders, out)`` is the whole pipeline (see :mod:`.site`): load and
analyse, render (:mod:`evidence_kit.render`), run MkDocs, write the manifest,
sign (:mod:`evidence_kit.attest`), scan (:mod:`.safety`), and only then move the
result into place. ``publish`` does no arithmetic: every number comes from
:func:`evidence_kit.analyze.analyze`.
"""

from .site import BuildResult, build_site, load_decisions

__all__ = ["BuildResult", "build_site", "load_decisions"]
