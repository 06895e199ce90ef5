"""The toolchain a site's bytes depend on, beyond evidence-kit itself: recorded at build, compared at verify.

A site's figures are a function of its evidence alone. Its files are also a
function of these packages: Jinja2 writes the Markdown, Altair and pandas the
chart specs in it, vl-convert the chart SVGs and the vendored Vega scripts,
Python-Markdown the articles, MkDocs and Material the HTML, the search index
and the theme files. ``build --sign`` records their versions in the signed
statement; ``verify`` rebuilds the site byte for byte only with the same
versions installed, and otherwise checks the figures against the pages' text.
"""

from __future__ import annotations

import platform
from importlib import metadata

from .layout import VEGA_SCRIPT  # a name, not the charts: verify reads this module for a decision folder too

__all__ = ["TOOLCHAIN_PACKAGES", "PYTHON", "installed_toolchain", "toolchain_differences", "describe_differences", "toolchain_bound"]

PYTHON = "python"
_ABSENT = "(none)"  # a package one side of a comparison does not name
# Distribution names as pip spells them (constraints.txt pins each).
# pymdown-extensions writes the code blocks of every page (the generated mkdocs.yml names pymdownx.highlight and
# pymdownx.superfences): its version is part of the bytes as much as Markdown's.
TOOLCHAIN_PACKAGES = ("jinja2", "markdown", "pymdown-extensions", "mkdocs", "mkdocs-material", "altair", "pandas", "vl-convert-python")


def installed_toolchain() -> dict[str, str]:
    """``{name: version}`` of the interpreter and of every package in :data:`TOOLCHAIN_PACKAGES`."""
    versions = {PYTHON: platform.python_version()}
    versions.update({name: metadata.version(name) for name in TOOLCHAIN_PACKAGES})
    return versions


def toolchain_differences(recorded: dict[str, str], installed: dict[str, str]) -> list[tuple[str, str, str]]:
    """``(name, recorded, installed)`` for every entry of either that the other does not match, by name."""
    return [
        (name, recorded.get(name, _ABSENT), installed.get(name, _ABSENT))
        for name in sorted(set(recorded) | set(installed))
        if recorded.get(name) != installed.get(name)
    ]


def describe_differences(differences: list[tuple[str, str, str]]) -> str:
    """``built with mkdocs-material 9.6.1, installed 9.6.2``; with several, each named on both sides. A package
    the record lacks (a site signed before its version was recorded) was built with some version, not with none."""
    differences = [(name, "(not recorded)" if recorded == _ABSENT else recorded, installed) for name, recorded, installed in differences]
    if len(differences) == 1:
        name, recorded, installed = differences[0]
        return f"built with {name} {recorded}, installed {installed}"
    built = " and ".join(f"{name} {recorded}" for name, recorded, _ in differences)
    here = " and ".join(f"{name} {installed}" for name, _, installed in differences)
    return f"built with {built}, installed {here}"


def toolchain_bound(rel: str) -> bool:
    """A generated file (docs or published path) whose bytes depend on the toolchain rather than the figures:
    the chart SVGs and the vendored Vega scripts."""
    return rel.endswith(".svg") or rel.rsplit("/", 1)[-1] == VEGA_SCRIPT
