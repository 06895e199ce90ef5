"""Checks on the evidence itself: the journal contract, and a receipt for every published trial."""

from __future__ import annotations

from pathlib import Path

from ..errors import EvidenceError
from ..model import RECEIPT_NAME, Receipt
from ..model.evidence import DecisionEvidence, TrialEvidence
from ..model.layout import layout_problem
from ..read import read_json_model
from .contract import discover_evidence, evidence_problems, load_evidence
from .verification import CheckResult, Context, Problem

__all__ = ["check_contract", "check_receipts", "trial_folders"]


def _rel(ctx: Context, source: str) -> str:
    rel = Path(source).resolve().relative_to(ctx.root.resolve()).as_posix()
    return "" if rel == "." else rel


def _located(ctx: Context, err: EvidenceError) -> str:
    if err.path is None:
        return ctx.label
    try:
        rel = _rel(ctx, err.path)
    except ValueError:
        rel = err.path
    return ctx.where(rel, err.line)


def check_contract(ctx: Context) -> CheckResult:
    """Every decision and trial found loads under the journal contract, and its runs are well formed."""
    name = "contract"
    units = discover_evidence(ctx.root, ctx.files)
    if not units:
        return CheckResult(name, "fail", "no evidence found", [Problem(ctx.label, "no decision.toml or trial.json anywhere")])
    problems: list[Problem] = []
    journals = 0
    for unit in units:
        prefix = unit + "/" if unit else ""
        unsafe = [rel for rel in ctx.special if rel.startswith(prefix)]
        if unsafe:
            # Loading would follow the link; the paths check names it.
            problems.append(Problem(ctx.where(unit), f"not loaded: holds {len(unsafe)} symlink(s) or special file(s)"))
            ctx.unloaded.append(unit)
            continue
        try:
            evidence = load_evidence(ctx.root, unit)
        except EvidenceError as err:
            problems += [Problem(_located(ctx, each), each.message) for each in err.each()]
            ctx.unloaded.append(unit)
            continue
        ctx.evidence[unit] = evidence
        problems += _layout_problems(ctx, unit, units)
        for journal, problem in evidence_problems(evidence):
            problems.append(Problem(ctx.where(_rel(ctx, journal)), problem))
        journals += sum(len(trial.arms) for _, trial in trial_folders(ctx, unit))
    if problems:
        return CheckResult(name, "fail", f"{len(problems)} contract violation(s)", problems)
    return CheckResult(name, "pass", f"{len(units)} evidence folder(s), {journals} journal(s): layout, schema, order, counts, warmup, runs, footers")


def _layout_problems(ctx: Context, unit: str, units: list[str]) -> list[Problem]:
    """Each file of a loaded evidence folder (not of another folder inside it) is one the contract lays out: a
    page, an image or a note there would be served to a reader and compared with nothing."""
    prefix = unit + "/" if unit else ""
    inner_units = tuple(u + "/" for u in units if u != unit and u.startswith(prefix))
    trials = None
    if isinstance(ctx.evidence[unit], DecisionEvidence):
        trials = [folder[len(prefix) :] for folder, _ in trial_folders(ctx, unit)]
    return [
        Problem(ctx.where(rel), problem)
        for rel in ctx.files
        if rel.startswith(prefix) and not rel.startswith(inner_units)
        if (problem := layout_problem(rel[len(prefix) :], trials))
    ]


def trial_folders(ctx: Context, unit: str) -> list[tuple[str, TrialEvidence]]:
    """``(relative folder, trial)`` for every trial of a loaded evidence unit."""
    evidence = ctx.evidence[unit]
    trials = [evidence] if isinstance(evidence, TrialEvidence) else evidence.trials
    return [(_rel(ctx, t.source), t) for t in trials]


def _published(ctx: Context, folder: str) -> bool:
    """A trial is published evidence when a manifest covers it or the whole folder is signed."""
    if ctx.envelope_data is not None:
        return True
    parts = folder.split("/") if folder else []
    return any("/".join(parts[:i]) in ctx.manifests for i in range(len(parts) + 1))


def _receipt_problems(ctx: Context, rel: str, folder: str, found: dict[str, str]) -> list[Problem]:
    """A receipt is a valid record whose counts name only files its folder holds; record its digest in ``found``."""
    try:
        receipt = read_json_model(ctx.root / rel, Receipt)
    except EvidenceError as err:
        return [Problem(ctx.where(rel, each.line), each.message) for each in err.each()]
    present = set(ctx.files)
    prefix = f"{folder}/" if folder else ""
    problems = [
        Problem(ctx.where(rel), f"counts replacements in {counted!r}, which the folder does not hold")
        for counted in sorted(receipt.counts)
        if prefix + counted not in present
    ]
    digest = ctx.digest(rel)
    found[rel] = digest[0] if isinstance(digest, tuple) else digest
    return problems


def _unloaded_receipts(ctx: Context, found: dict[str, str]) -> int:
    """Note in ``found`` the digest of each receipt in a folder the contract check could not load (its trials are
    unknown, so it is compared only with the signed predicate); return how many."""
    prefixes = tuple(f"{unit}/" if unit else "" for unit in ctx.unloaded)
    count = 0
    for rel in ctx.files:
        if rel.rsplit("/", 1)[-1] == RECEIPT_NAME and rel.startswith(prefixes) and rel not in found:
            digest = ctx.digest(rel)
            found[rel] = digest[0] if isinstance(digest, tuple) else digest
            count += 1
    return count


def _held_receipt_problems(ctx: Context, found: dict[str, str]) -> tuple[list[Problem], int]:
    """Each loaded decision folder's and trial bundle's receipt, noted in ``found``: the problems, and how many
    trials are raw (no manifest, no receipt)."""
    problems: list[Problem] = []
    raw = 0
    for unit in sorted(ctx.evidence):
        if isinstance(ctx.evidence[unit], DecisionEvidence):
            rel = f"{unit}/{RECEIPT_NAME}" if unit else RECEIPT_NAME
            redacted = _published(ctx, unit) or any(_published(ctx, folder) for folder, _ in trial_folders(ctx, unit))
            if rel in ctx.files:
                problems += _receipt_problems(ctx, rel, unit, found)
            elif redacted:
                problems.append(
                    Problem(ctx.where(rel), "the decision folder is published without a receipt (decision.toml's replacements are not accounted for)")
                )
        for folder, trial in trial_folders(ctx, unit):
            rel = f"{folder}/{RECEIPT_NAME}" if folder else RECEIPT_NAME
            if rel not in ctx.files:
                if _published(ctx, folder):
                    problems.append(Problem(ctx.where(rel), f"trial {trial.trial.trial_id!r} is published without a receipt"))
                else:
                    raw += 1
                continue
            problems += _receipt_problems(ctx, rel, folder, found)
    return problems, raw


def _signed_receipt_problems(ctx: Context, found: dict[str, str]) -> list[Problem]:
    """The receipts present against those the signed predicate names, with their sha256."""
    if ctx.predicate is None:
        return []
    problems: list[Problem] = []
    signed = {str(r.get("path")): str(r.get("sha256")) for r in ctx.predicate.get("receipts", []) if isinstance(r, dict)}
    for rel in sorted(set(signed) | set(found)):
        if rel not in found:
            problems.append(Problem(ctx.where(rel), "named by the signed predicate but not present"))
        elif rel not in signed:
            problems.append(Problem(ctx.where(rel), "present but not named by the signed predicate"))
        elif signed[rel] != found[rel]:
            problems.append(Problem(ctx.where(rel), "sha256 differs from the one the signed predicate names"))
    return problems


def _unjudged(ctx: Context, unread: int) -> str:
    """What could not be judged: the trials of a folder the contract check could not load are unknown, so
    neither which of them are published nor whether each has a receipt is established."""
    if not ctx.unloaded:
        return ""
    folders = ", ".join(ctx.where(u) for u in ctx.unloaded[:5])
    how = "compared only with the signed predicate" if ctx.predicate is not None else "not examined"
    return (
        f"; not checked: which trials {len(ctx.unloaded)} evidence folder(s) hold, and that each has its receipt "
        f"(not loaded, see the contract check: {folders}); {unread} receipt(s) there {how}"
    )


def check_receipts(ctx: Context) -> CheckResult:
    """Every published trial bundle and redacted decision folder holds a valid redaction receipt
    that counts only files it holds; the signed predicate names each receipt."""
    name = "receipts"
    found: dict[str, str] = {}
    problems, raw = _held_receipt_problems(ctx, found)
    unread = _unloaded_receipts(ctx, found)
    problems += _signed_receipt_problems(ctx, found)
    unjudged = _unjudged(ctx, unread)
    if problems:
        return CheckResult(name, "fail", f"{len(problems)} receipt problem(s){unjudged}", problems)
    if ctx.unloaded:
        return CheckResult(name, "skip", f"{len(found) - unread} receipt(s) of the loaded evidence present and valid{unjudged}")
    if not found and raw:
        return CheckResult(name, "skip", f"raw evidence: {raw} trial(s) not redacted yet (no manifest, no receipt)")
    tail = f"; {raw} raw trial(s) without" if raw else ""
    return CheckResult(name, "pass", f"{len(found)} receipt(s) present and valid{tail}")
