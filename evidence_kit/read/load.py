"""Load trial bundles and decision folders from disk into :mod:`evidence_kit.model.evidence`."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from ..errors import BadInput
from ..model import ArmRef, Check, Decision, Footer, Gate, Header, Request, Run, Trial
from ..model.evidence import ArmEvidence, DecisionEvidence, TrialEvidence
from .files import read_json_model, read_toml_model
from .journal import JournalReader
from .telemetry import read_telemetry

__all__ = ["load_trial", "load_decision", "load_any", "read_arm"]


def _check_turn(request: Request, trial: Trial, path: Path, line: int) -> None:
    """A timed request of a multi-turn workload names its conversation and turn, within the plan's; one of a
    single-turn workload names neither."""
    wl = trial.workload
    if wl.turns is None:
        if request.turn is not None:
            raise BadInput(f"a request of turn {request.turn} in a trial whose workload is single-turn", path, line)
        return
    if request.turn is None or request.conversation is None:
        raise BadInput(f"a timed request without its conversation and turn in a trial of {wl.turns} turns", path, line)
    if request.turn > wl.turns or request.conversation >= wl.requests_per_run:
        raise BadInput(
            f"turn {request.turn} of conversation {request.conversation} is outside the workload's "
            f"{wl.requests_per_run} conversations of {wl.turns} turns",
            path,
            line,
        )


def read_arm(bundle: Path, trial: Trial, ref: ArmRef, *, require_footer: bool = True) -> ArmEvidence:
    """Read one arm's journal and check it belongs to ``trial`` as the arm ``ref``."""
    path = bundle / ref.journal
    if not path.is_file():
        raise BadInput(f"journal of the {ref.phase} arm is missing (trial.json names {ref.journal})", path)
    groups = set(trial.workload.groups())
    order = _RunOrder(trial)
    reader = JournalReader(path, require_footer=require_footer)
    arm: ArmEvidence | None = None
    # A run holds at most the plan's requests, and each (repetition, group) is run once per arm: extra
    # requests would let one arm's surplus hide another's failures in the planned-vs-ok count.
    per_run = trial.workload.timed_per_run  # every turn of every conversation, in a multi-turn workload
    runs_seen: dict[tuple[int, int, int | float], str] = {}
    unclosed: dict[str, int] = {}  # timed requests' run -> the line of its first request, until its run record
    for line, record in reader:
        if isinstance(record, Header):
            for name, want in (("trial_id", trial.trial_id), ("arm", ref.arm), ("phase", ref.phase), ("seq", ref.seq)):
                if getattr(record, name) != want:
                    raise BadInput(f"header {name} is {getattr(record, name)!r}, trial.json says {want!r}", path, line)
            arm = ArmEvidence(ref=ref, header=record, footer=None, sha256="", size=0)
            continue
        assert arm is not None  # the reader guarantees the header comes first
        if isinstance(record, (Request, Run)):
            if (record.rate is not None) != trial.workload.open_loop:
                raise BadInput(
                    f"a {record.type} record at a {'rate' if record.rate is not None else 'concurrency'} "
                    f"in a trial whose workload is at a {'rate' if trial.workload.open_loop else 'concurrency'}",
                    path,
                    line,
                )
            if (record.input_nominal, record.load) not in groups:
                raise BadInput(f"group ({record.input_nominal}, {record.load}) is not in the trial's workload", path, line)
            timed = isinstance(record, Run) or not record.warmup
            if timed and not 1 <= record.repetition <= trial.workload.repetitions:
                raise BadInput(f"repetition {record.repetition} is outside 1..{trial.workload.repetitions}", path, line)
        if isinstance(record, Request):
            if not record.warmup:
                _check_turn(record, trial, path, line)
            arm.requests.append(record)
            if not record.warmup:
                unclosed.setdefault(record.run, line)
        elif isinstance(record, Run):
            order.check(record, path, line)
            if record.requests > per_run:
                raise BadInput(f"run {record.run!r} holds {record.requests} timed requests; the workload plans {per_run} per run", path, line)
            cell = (record.repetition, record.input_nominal, record.load)
            if cell in runs_seen:
                raise BadInput(
                    f"run {record.run!r} repeats repetition {cell[0]} of group ({cell[1]}, {cell[2]}), already run as {runs_seen[cell]!r}", path, line
                )
            runs_seen[cell] = record.run
            unclosed.pop(record.run, None)
            arm.runs.append(record)
        elif isinstance(record, Gate):
            arm.gates.append(record)
        elif isinstance(record, Check):
            arm.checks.append(record)
        elif isinstance(record, Footer):
            arm.footer = record
    assert arm is not None
    if arm.footer is not None and unclosed:
        run, first = next(iter(unclosed.items()))
        raise BadInput(f"timed requests of run {run!r} have no run record before the footer", path, first)
    arm.sha256, arm.size = reader.sha256, reader.size
    arm.telemetry = read_telemetry(bundle / "telemetry" / Path(ref.journal).name)
    return arm


class _RunOrder:
    """A randomised trial's runs must come in the order trial.json's workload gives (some may be
    missing: an arm stopped early); a trial in fixed order is not checked (its order was never recorded)."""

    def __init__(self, trial: Trial):
        wl = trial.workload
        self.places = {run: i for i, run in enumerate(wl.run_order())} if wl.order == "randomised" else None
        self.last: tuple[int, Run] | None = None

    def check(self, run: Run, path: Path, line: int) -> None:
        if self.places is None:
            return
        place = self.places.get((run.repetition, run.input_nominal, run.load))
        if place is None:
            return  # outside the workload: refused above
        if self.last is not None and place <= self.last[0]:
            raise BadInput(
                f"run {run.run!r} comes after run {self.last[1].run!r}, out of the randomised order trial.json's workload gives (order, seed)",
                path,
                line,
            )
        self.last = (place, run)


def load_trial(bundle: str | Path, *, require_footer: bool = True) -> TrialEvidence:
    """Load a trial bundle (a folder holding ``trial.json``)."""
    bundle = Path(bundle)
    trial_file = bundle / "trial.json"
    if not bundle.is_dir():
        raise BadInput("not a folder", bundle)
    if not trial_file.is_file():
        raise BadInput("not a trial bundle (no trial.json)", bundle)
    trial = read_json_model(trial_file, Trial)
    arms = [read_arm(bundle, trial, ref, require_footer=require_footer) for ref in trial.arms]
    return TrialEvidence(trial=trial, arms=arms, source=str(bundle))


def load_decision(folder: str | Path) -> DecisionEvidence:
    """Load a decision folder: ``decision.toml`` and the trial bundles it names."""
    folder = Path(folder)
    decision_file = folder / "decision.toml"
    decision = read_toml_model(decision_file, Decision)
    trials: list[TrialEvidence] = []
    for name in decision.trials:
        path = folder / name
        parts = PurePosixPath(name).parts
        if not parts or PurePosixPath(name).is_absolute() or ".." in parts or path == folder:
            # Its bundles are its subfolders (docs/contract.md): one elsewhere is no part of the folder published.
            raise BadInput(f"trial {name!r} is not a subfolder of the decision folder (name each trial by its folder's path in it)", decision_file)
        if not path.is_dir():
            raise BadInput(f"trial {name!r} is named but {folder / name} is not a folder", decision_file)
        trials.append(load_trial(path))
    ids = [t.trial.trial_id for t in trials]
    if len(set(ids)) != len(ids):
        raise BadInput("two trials share one trial_id", decision_file)
    return DecisionEvidence(decision=decision, trials=trials, source=str(folder))


def load_any(path: str | Path) -> DecisionEvidence | TrialEvidence:
    """A decision folder if it holds ``decision.toml``, else a trial bundle."""
    path = Path(path)
    if not path.exists():
        raise BadInput("no such file or folder", path)
    if (path / "decision.toml").is_file():
        return load_decision(path)
    if (path / "trial.json").is_file():
        return load_trial(path)
    raise BadInput("neither a decision folder (decision.toml) nor a trial bundle (trial.json)", path)
