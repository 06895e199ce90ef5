"""What a difference means when the packages that wrote a file are not those the signed site records.

A chart (its spec, its SVG, the vendored Vega scripts) and a committed Markdown page are compared with what
this verifier derives whatever toolchain is installed: the record is the key holder's claim, so it never turns
a comparison off. When such a file differs and the packages that write it differ from the recorded ones, the
difference may be a version's or an edit: it stays a failure, and one more problem says so and what to install.
"""

from __future__ import annotations

from ..attest.statement import StatementError, recorded_toolchain
from ..render.toolchain import describe_differences, installed_toolchain, toolchain_differences
from .verification import Context, Problem

__all__ = ["CHART_PACKAGES", "MARKDOWN_PACKAGES", "not_proven_with_other_versions"]

# The packages whose versions a chart's bytes depend on: Altair and pandas write its spec, vl-convert its SVG
# and the Vega scripts that draw the spec (docs/verify.md, "The recorded toolchain").
CHART_PACKAGES = ("altair", "pandas", "vl-convert-python")
# A committed Markdown page's: Jinja2 writes it from the templates, Altair and pandas the chart specs it embeds.
MARKDOWN_PACKAGES = ("jinja2", "altair", "pandas")


def not_proven_with_other_versions(ctx: Context, where: str, what: str, packages: tuple[str, ...]) -> list[Problem]:
    """One problem at ``where`` when the installed ``packages`` are not the recorded ones (``what`` names the
    files: ``charts``), or when the site records none; else nothing."""
    try:
        recorded = recorded_toolchain(ctx.predicate) if ctx.predicate is not None else None
    except StatementError:
        return []  # the sources check reports the malformed record
    installed = installed_toolchain()
    if recorded is None:
        versions = ", ".join(f"{name} {installed[name]}" for name in packages)
        return [Problem(where, f"{what} derived with the installed {versions}; the folder records no toolchain to compare with")]
    differences = [d for d in toolchain_differences(recorded, installed) if d[0] in packages]
    if not differences:
        return []
    pins = " ".join(f"{name}=={version}" for name, version, _ in differences)
    return [
        Problem(
            where,
            f"{what} not proven: {describe_differences(differences)}; what this verifier derives differently may be a "
            f"toolchain difference or an edit, so it fails: install the recorded versions (pip install {pins}) and verify again",
        )
    ]
