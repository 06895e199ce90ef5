"""The last step of a build: scan the finished site for anything private, and fail closed.

The redactor's scanner does the work (its known-value matcher and its
detectors); this module only decides what to hunt for: the private values of
any raw (receipt-less) bundle being published, the operator's private maps and
policy, and the detectors everywhere but the vendored, minified scripts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from ..errors import CheckFailed
from ..model.evidence import DecisionEvidence

__all__ = ["KNOWN_ONLY", "known_values", "scan_site"]

# Minified third-party scripts: hunted for known values only (the detectors would
# flag their own hashes and example addresses).
KNOWN_ONLY: tuple[str, ...] = ("assets/vega-bundle.js", "search/*.js", "assets/javascripts/*", "assets/stylesheets/*",
                               "assets/images/*")


def known_values(decisions: Sequence[DecisionEvidence], maps: Sequence[Path] = ()) -> list:
    """Known private values: every raw bundle's ``private`` values, plus each private map's values."""
    from ..redact import known_values_from_raw, load_known_values

    found = []
    for evidence in decisions:
        for trial in evidence.trials:
            if not (Path(trial.source) / "receipt.json").is_file():
                found += known_values_from_raw(Path(trial.source))
    for path in maps:
        found += load_known_values(path)
    return found


# Addresses every built site contains that name no one: XML namespaces and the
# schemas' own identifiers. Public, so the url detector does not flag them.
SITE_PUBLIC: tuple[str, ...] = (
    "http://www.w3.org/2000/svg",
    "http://www.w3.org/1999/xlink",
    "https://json-schema.org/draft/2020-12/schema",
    *(f"https://evidence-kit.invalid/schema/{name}.v1.json"
      for name in ("trial", "journal-record", "decision", "manifest", "receipt", "analysis")),
    # The signed Statement's type identifiers (``build --sign``).
    "https://in-toto.io/Statement/v1",
    "https://evidence-kit.invalid/attestation/site/v1",
)


def scan_site(roots: Sequence[Path], values: list, *, shown_as: Path, policy_file: Path | None = None) -> None:
    """Scan every file under ``roots``; raise :class:`CheckFailed` naming the first finding and the count.

    ``roots`` are staged folders; findings are reported under ``shown_as`` (the
    site folder the user named), where the file would have gone.
    """
    from ..redact import Policy, load_policy, scan_tree

    policy = load_policy(policy_file) if policy_file else Policy()
    policy = policy.model_copy(update={"public": [*policy.public, *SITE_PUBLIC]})
    for root in roots:
        findings = scan_tree(root, known_values=values, policy=policy, known_only=KNOWN_ONLY)
        if findings:
            first = findings[0]
            how = "a known private value" if first.source == "known" else f"the {first.cls} detector"
            more = f" (and {len(findings) - 1} more findings)" if len(findings) > 1 else ""
            raise CheckFailed(
                f"the site would publish something private: {first.cls}, found as {how}{more}; nothing was written",
                shown_as / root.name / first.file, first.line,
            )
