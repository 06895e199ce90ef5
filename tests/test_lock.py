"""The lock file installs on every Python the project says it supports.

`pyproject.toml` says `requires-python = ">=3.11"`, and the README's two commands promise a fresh machine
with only Python 3.11. Debian 12's `python3.11` is 3.11.2: a pin whose release needs 3.11.5 (as
pymdown-extensions 13 does) made `pip install -c constraints.txt` refuse there with ResolutionImpossible.
Every pinned release installed here is checked against the oldest Python the project admits.
"""

from __future__ import annotations

import importlib.metadata
import re
import tomllib

from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from .conftest import REPO


def _oldest_supported() -> Version:
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["requires-python"]
    match = re.fullmatch(r">=\s*(\d+)\.(\d+)(?:\.(\d+))?", declared)
    assert match, f"requires-python {declared!r} is not a plain lower bound"
    return Version(f"{match[1]}.{match[2]}.{match[3] or 0}")


def _pins() -> dict[str, str]:
    pins = {}
    for line in (REPO / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, version = line.split("==")
            pins[canonicalize_name(name)] = version
    return pins


def test_every_pinned_release_installs_on_the_oldest_python_the_project_supports() -> None:
    oldest = _oldest_supported()
    installed = {canonicalize_name(d.metadata["Name"]): d for d in importlib.metadata.distributions()}
    refused = []
    checked = 0
    for name, version in sorted(_pins().items()):
        dist = installed.get(name)
        if dist is None or dist.version != version:
            continue  # not installed here (another platform's or an extra's pin): nothing to read
        checked += 1
        needs = dist.metadata.get("Requires-Python")
        if needs and not SpecifierSet(needs).contains(oldest, prereleases=True):
            refused.append(f"{name}=={version} requires Python {needs}")
    assert checked > 50, f"only {checked} pins were installed here"
    assert not refused, f"constraints.txt pins releases Python {oldest} cannot install: {refused}"
