"""The verification steps, in the order they run; each returns one :class:`CheckResult`.

A check that raises is a failure of that check (see :func:`run_check`), never a pass.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from ..attest.dsse import IN_TOTO_PAYLOAD_TYPE, EnvelopeError, parse_envelope, verify_signature
from ..attest.keys import PUBLIC_KEY_NAME, key_id, parse_public_key
from ..attest.manifest import ENVELOPE_NAME, MANIFEST_NAME, NOT_LISTED
from ..attest.statement import StatementError, parse_statement
from ..attest.tree import path_problem, resolve_listed
from ..errors import EvidenceError
from ..model import RECEIPT_NAME
from .recompute import is_built_site
from .verification import CheckResult, Context, Problem

__all__ = ["Check", "run_check", "check_signature", "check_statement", "check_digests", "check_completeness", "check_paths"]

Check = Callable[[Context], CheckResult]


def run_check(name: str, check: Check, ctx: Context) -> CheckResult:
    """Run one check; an exception inside it is that check's failure, with the reason."""
    try:
        return check(ctx)
    except EvidenceError as err:
        return CheckResult(name, "fail", "could not complete", [Problem(err.path or ctx.label, err.message)])
    except Exception as err:  # noqa: BLE001 - by design: any crash fails the check
        last = traceback.extract_tb(err.__traceback__)[-1]
        where = f"{last.filename.rsplit('/', 1)[-1]}:{last.lineno}"
        return CheckResult(name, "fail", "the check itself crashed", [Problem(where, f"{type(err).__name__}: {err}")])


def _join(folder: str, rel: str) -> str:
    return f"{folder}/{rel}" if folder else rel


def _site_key(ctx: Context) -> tuple[list[Ed25519PublicKey], str, str]:
    """The folder's own ``signing.pub``: ``([key], its key id, "")`` or ``([], "", why not)``."""
    path, problem = resolve_listed(ctx.root, PUBLIC_KEY_NAME)
    if path is None:
        return [], "", f"the folder names no key ({PUBLIC_KEY_NAME}: {problem})"
    key = parse_public_key(path.read_bytes(), ctx.where(PUBLIC_KEY_NAME))
    return [key], key_id(key), ""


def check_signature(ctx: Context) -> CheckResult:
    """The envelope's signature verifies over PAE(payloadType, payload), by the pinned key when one is pinned.

    Only a signature by a key the auditor pinned (``--key``, or ``--key-id`` matched
    by the folder's ``signing.pub``) authenticates the signer; without a pin the
    folder's own key shows integrity only, and the report says so.
    """
    name = "signature"
    pin = ctx.pin
    path, problem = resolve_listed(ctx.root, ENVELOPE_NAME)
    if path is None:
        if problem != "missing":
            return CheckResult(name, "fail", "envelope cannot be used", [Problem(ctx.where(ENVELOPE_NAME), problem or "")])
        if pin.pinned:
            return CheckResult(
                name,
                "fail",
                "not signed",
                [Problem(ctx.where(ENVELOPE_NAME), f"missing, but a key was pinned with {pin.how}: an unsigned folder cannot be authenticated")],
            )
        if resolve_listed(ctx.root, PUBLIC_KEY_NAME)[0] is not None:
            # A signed folder stripped of its envelope must not pass as an unsigned one.
            return CheckResult(
                name,
                "fail",
                "signature removed",
                [Problem(ctx.where(ENVELOPE_NAME), f"missing, but the folder carries {PUBLIC_KEY_NAME}: it was signed")],
            )
        return CheckResult(name, "skip", f"not signed (no {ENVELOPE_NAME}): the signer cannot be authenticated")
    ctx.envelope_data = path.read_bytes()
    if pin.key is not None:
        keys, whose = [pin.key], f"key id {pin.key_id} given with {pin.how} (pinned)"
    else:
        keys, folder_kid, why = _site_key(ctx)
        if not keys:
            return CheckResult(name, "fail", "no key to verify with", [Problem(ctx.where(PUBLIC_KEY_NAME), why)])
        if pin.key_id is not None and folder_kid != pin.key_id:
            return CheckResult(
                name,
                "fail",
                "not the pinned key",
                [Problem(ctx.where(PUBLIC_KEY_NAME), f"is key id {folder_kid}, not {pin.key_id} pinned with --key-id: not the publisher's key")],
            )
        if pin.key_id is not None:
            whose = f"key id {folder_kid} of the folder's {PUBLIC_KEY_NAME}, pinned with --key-id"
        else:
            whose = (
                f"key id {folder_kid[:16]}… from the folder's own {PUBLIC_KEY_NAME}: integrity only, "
                "the signer is not authenticated (pin with --key or --key-id)"
            )
    try:
        envelope = parse_envelope(ctx.envelope_data)
        verified = verify_signature(envelope, keys)
    except EnvelopeError as err:
        return CheckResult(name, "fail", "signature does not verify", [Problem(ctx.where(ENVELOPE_NAME), str(err))])
    ctx.signed_payload, ctx.payload_type, ctx.signer = verified.payload, verified.payload_type, verified.keyid
    ctx.authenticated = pin.pinned
    return CheckResult(name, "pass", f"Ed25519 over the DSSE PAE, {whose}")


def check_statement(ctx: Context) -> CheckResult:
    """payloadType is in-toto's, and the verified payload is our Statement v1."""
    name = "statement"
    if ctx.envelope_data is None:
        return CheckResult(name, "skip", "not signed")
    where = ctx.where(ENVELOPE_NAME)
    if ctx.signed_payload is None:
        # Never parse a payload whose signature did not verify.
        return CheckResult(name, "fail", "not examined: the signature did not verify", [Problem(where, "unverified payload")])
    if ctx.payload_type != IN_TOTO_PAYLOAD_TYPE:
        return CheckResult(
            name, "fail", "wrong payloadType", [Problem(where, f"payloadType is {ctx.payload_type!r}, expected {IN_TOTO_PAYLOAD_TYPE!r}")]
        )
    try:
        ctx.subjects, ctx.predicate = parse_statement(ctx.signed_payload)
    except StatementError as err:
        return CheckResult(name, "fail", "not an evidence-kit Statement", [Problem(where, str(err))])
    return CheckResult(name, "pass", f"in-toto Statement v1, {len(ctx.subjects)} subjects, predicate {len(ctx.predicate)} fields")


def check_digests(ctx: Context) -> CheckResult:
    """Every signed subject and every manifest entry has the sha256 (and size) of the bytes on disk."""
    name = "digests"
    problems: list[Problem] = []
    hashed: set[str] = set()
    for subject, want in sorted((ctx.subjects or {}).items()):
        got = ctx.digest(subject)
        if isinstance(got, tuple):
            hashed.add(subject)
            if got[0] != want:
                problems.append(Problem(ctx.where(subject), f"sha256 is {got[0][:16]}…, the signed statement says {want[:16]}…"))
    for folder, doc in sorted(ctx.manifests.items()):
        where = ctx.where(_join(folder, MANIFEST_NAME))
        if isinstance(doc, str):
            problems.append(Problem(where, doc))
            continue
        for entry in doc["files"]:
            listed = entry.get("path")
            if path_problem(listed):
                continue  # reported by the paths check; never read
            rel = _join(folder, listed)
            got = ctx.digest(rel)
            if not isinstance(got, tuple):
                continue  # missing or unsafe: reported by the completeness and paths checks
            hashed.add(rel)
            if got[0] != entry.get("sha256"):
                problems.append(Problem(ctx.where(rel), f"sha256 is {got[0][:16]}…, {where} says {str(entry.get('sha256'))[:16]}…"))
            elif got[1] != entry.get("size"):
                problems.append(Problem(ctx.where(rel), f"size is {got[1]}, {where} says {entry.get('size')}"))
    if not ctx.manifests and ctx.subjects is None:
        return CheckResult(name, "skip", "no manifest and no signature: raw evidence, nothing lists hashes")
    if problems:
        return CheckResult(name, "fail", f"{len(problems)} file(s) differ from what is listed", problems)
    return CheckResult(name, "pass", f"{len(hashed)} file(s) match their listed sha256")


def check_completeness(ctx: Context) -> CheckResult:
    """No listed file is missing, no file is unlisted, and the signed subjects are exactly the manifest."""
    name = "complete"
    problems: list[Problem] = []
    on_disk = set(ctx.files)
    for folder, doc in sorted(ctx.manifests.items()):
        if isinstance(doc, str):
            continue
        prefix = folder + "/" if folder else ""
        listed = {_join(folder, e.get("path")) for e in doc["files"] if not path_problem(e.get("path"))}
        here = {f for f in on_disk if f.startswith(prefix) and f[len(prefix) :] not in NOT_LISTED}
        for rel in sorted(listed - on_disk):
            if resolve_listed(ctx.root, rel)[1] == "missing":
                problems.append(Problem(ctx.where(rel), f"listed in {ctx.where(_join(folder, MANIFEST_NAME))} but missing"))
        for rel in sorted(here - listed):
            problems.append(Problem(ctx.where(rel), f"present but not listed in {ctx.where(_join(folder, MANIFEST_NAME))}"))
    if ctx.subjects is not None:
        problems += _subject_binding(ctx, on_disk)
    problems += _decision_manifests(ctx)
    if "" not in ctx.manifests and is_built_site(ctx):
        # build always writes it: a site without one is not raw evidence, it lost its list of files.
        problems.append(Problem(ctx.where(MANIFEST_NAME), "missing: a built site lists every file in it"))
    if not ctx.manifests and ctx.subjects is None and not problems:
        return CheckResult(name, "skip", "no manifest: raw evidence")
    if problems:
        return CheckResult(name, "fail", f"{len(problems)} file(s) missing, unlisted or unsigned", problems)
    return CheckResult(name, "pass", f"{len(on_disk)} file(s) on disk, each listed by every manifest above it, none missing")


def _decision_manifests(ctx: Context) -> list[Problem]:
    """A redacted decision folder (one holding a trial manifest or a receipt) must carry its own manifest:
    without it ``decision.toml``, its list of trials and any file beside them would be unchecked."""
    problems = []
    for rel in ctx.files:
        if rel.rsplit("/", 1)[-1] != "decision.toml":
            continue
        folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
        prefix = folder + "/" if folder else ""
        if folder in ctx.manifests:
            continue
        redacted = [f for f in ctx.files if f.startswith(prefix) and f.rsplit("/", 1)[-1] in (MANIFEST_NAME, RECEIPT_NAME)]
        if redacted:
            problems.append(
                Problem(
                    ctx.where(_join(folder, MANIFEST_NAME)),
                    (
                        f"missing: a redacted decision folder (it holds {redacted[0][len(prefix) :]}) lists decision.toml and "
                        "every trial in its own manifest; redact it again with this version (no other byte changes)"
                    ),
                )
            )
    return problems


def _subject_binding(ctx: Context, on_disk: set[str]) -> list[Problem]:
    """The signed subjects must be exactly the files: the root manifest's entries plus the manifest itself."""
    assert ctx.subjects is not None
    problems: list[Problem] = []
    root = ctx.manifests.get("")
    if not isinstance(root, dict):
        return [Problem(ctx.where(MANIFEST_NAME), "the folder is signed but has no usable root manifest")]
    manifest_sha = {e.get("path"): e.get("sha256") for e in root["files"]}
    for subject, sha in sorted(ctx.subjects.items()):
        if subject == MANIFEST_NAME:
            continue
        if subject not in manifest_sha:
            problems.append(Problem(ctx.where(subject), "signed as a subject but not listed in the manifest"))
        elif manifest_sha[subject] != sha:
            problems.append(Problem(ctx.where(subject), "the manifest and the signed statement disagree on its sha256"))
        if subject not in on_disk and resolve_listed(ctx.root, subject)[1] == "missing":
            problems.append(Problem(ctx.where(subject), "signed as a subject but missing"))
    if MANIFEST_NAME not in ctx.subjects:
        problems.append(Problem(ctx.where(MANIFEST_NAME), "the manifest itself is not a signed subject"))
    for listed in sorted(set(manifest_sha) - set(ctx.subjects)):
        problems.append(Problem(ctx.where(str(listed)), "listed in the manifest but not signed"))
    return problems


def check_paths(ctx: Context) -> CheckResult:
    """No listed path escapes the folder ('..', absolute) or goes through a symlink; none in the folder."""
    name = "paths"
    problems: list[Problem] = []
    listed: list[tuple[str, str, str]] = []
    for folder, doc in sorted(ctx.manifests.items()):
        if isinstance(doc, dict):
            listed += [(ctx.where(_join(folder, MANIFEST_NAME)), folder, str(e.get("path"))) for e in doc["files"]]
    listed += [(ctx.where(ENVELOPE_NAME), "", subject) for subject in sorted(ctx.subjects or {})]
    for source, folder, path in listed:
        problem = path_problem(path)
        if problem is None:
            problem = resolve_listed(ctx.root, _join(folder, path))[1]
            if problem == "missing":
                problem = None
        if problem:
            problems.append(Problem(source, f"entry {path!r}: {problem}; rejected, nothing read"))
    for rel, problem in sorted(ctx.special.items()):
        problems.append(Problem(ctx.where(rel), f"{problem}: may not be published"))
    if problems:
        return CheckResult(name, "fail", f"{len(problems)} unsafe path(s)", problems)
    return CheckResult(name, "pass", f"{len(listed)} listed path(s) stay inside the folder; no symlinks")
