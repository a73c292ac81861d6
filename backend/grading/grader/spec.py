"""An assignment folder and its grader spec (docs/grading.md): load, validate, refuse clearly.

Pure Python (no Django): `./splaylab grade` and the service's grading task both load
assignments through here.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import yaml

ROOT = Path(__file__).resolve().parents[3]
SANDBOX = ROOT / "sandbox"

TOP_KEYS = {"title", "summary", "starter", "reference", "harness", "handout", "runs", "checks"}
RUN_KEYS = {"name", "mode", "nodes", "time", "seed", "net", "churn", "learn"}
CHECK_KEYS = {"name", "check", "run", "weight", "hidden", "params"}
NAME_RE = re.compile(r"^[a-z0-9_-]{1,40}$")
MAX_NODES = {"sim": 10_000, "live": 1_000}


class SpecError(ValueError):
    """A bad assignment folder: the message names the file, the key and the problem."""


@dataclass(frozen=True)
class RunSpec:
    name: str
    mode: str            # "sim" | "live"
    nodes: int
    time: float
    seed: int
    net: str | None
    churn: str | None    # a path relative to the folder (its text is in Assignment.files)
    learn: bool = False  # the trace names the peers received messages carry (peer-sampling checks)
    transport: str = "fast"   # a simulation's rpc/urpc messages: "fast" or "sockets" (docs/simulation.md)

    def key(self) -> dict[str, Any]:
        return {"mode": self.mode, "nodes": self.nodes, "time": self.time, "seed": self.seed,
                "net": self.net, "churn": self.churn, "learn": self.learn, "transport": self.transport}


@dataclass(frozen=True)
class CheckSpec:
    name: str
    check: str           # a library check's name, or "custom:FUNCTION"
    run: str
    weight: float
    hidden: bool
    params: dict[str, Any]


@dataclass
class Assignment:
    slug: str
    title: str
    summary: str
    handout: str
    starter: str
    reference: str
    harness: str
    spec: dict[str, Any]
    runs: list[RunSpec]
    checks: list[CheckSpec]
    files: dict[str, str] = field(default_factory=dict)   # churn scenarios, checks.py: path -> text
    folder: Path | None = None

    def run(self, name: str) -> RunSpec:
        return next(r for r in self.runs if r.name == name)


def _read(folder: Path, rel: str, what: str) -> str:
    path = folder / rel
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecError(f"{folder.name}/assignment.yaml: {what}: no file {rel}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise SpecError(f"{folder.name}/{rel}: cannot read it: {e}") from None


def load_assignment(folder: Path | str) -> Assignment:
    """Read assignments/NAME/ (assignment.yaml and the files it names)."""
    folder = Path(folder)
    if not (folder / "assignment.yaml").is_file():
        raise SpecError(f"{folder}: not an assignment folder (no assignment.yaml)")
    try:
        spec = yaml.safe_load((folder / "assignment.yaml").read_text(encoding="utf-8"))
    except yaml.YAMLError as e:
        raise SpecError(f"{folder.name}/assignment.yaml: not valid YAML: {e}") from None
    if not isinstance(spec, dict):
        raise SpecError(f"{folder.name}/assignment.yaml: must be a mapping of keys")
    texts = {}
    for key, default in (("starter", "starter/app.lua"), ("reference", "reference/app.lua"),
                         ("harness", "harness.lua"), ("handout", "README.md")):
        texts[key] = _read(folder, str(spec.get(key, default)), key)
    files: dict[str, str] = {}
    for run in spec.get("runs") or []:
        if isinstance(run, dict) and isinstance(run.get("churn"), str):
            files[run["churn"]] = _read(folder, run["churn"], f"run {run.get('name')!r}: churn")
    if (folder / "checks.py").is_file():
        files["checks.py"] = _read(folder, "checks.py", "checks.py")
    return assignment_from_texts(slug=folder.name, spec=spec, files=files, folder=folder, **texts)


def assignment_from_texts(*, slug: str, spec: dict[str, Any], starter: str, reference: str, harness: str,
                          handout: str = "", title: str | None = None, summary: str | None = None,
                          files: dict[str, str] | None = None, folder: Path | None = None) -> Assignment:
    """An assignment from its texts (the service keeps them in the database); validates the spec."""
    where = f"{slug}/assignment.yaml"
    files = dict(files or {})
    _no_unknown_keys(where, spec, TOP_KEYS)
    title = title or spec.get("title")
    if not isinstance(title, str) or not title.strip():
        raise SpecError(f"{where}: title: required, a text")
    runs = _runs(where, spec.get("runs"), files)
    checks = _checks(where, spec.get("checks"), runs, files)
    return Assignment(slug=slug, title=title.strip(), summary=str(summary or spec.get("summary") or ""),
                      handout=handout, starter=starter, reference=reference, harness=harness, spec=spec,
                      runs=runs, checks=checks, files=files, folder=folder)


def _no_unknown_keys(at: str, mapping: dict[str, Any], known: set[str]) -> None:
    unknown = set(mapping) - known
    if unknown:
        raise SpecError(f"{at}: unknown key {sorted(unknown)[0]!r} (known: {', '.join(sorted(known))})")


def _entries(where: str, raw: Any, what: str, known: set[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where it is, the mapping) for each entry of the list `whats`, checked for shape and keys."""
    if not isinstance(raw, list) or not raw:
        raise SpecError(f"{where}: {what}s: required, a list of at least one {what}")
    for i, entry in enumerate(raw, 1):
        at = f"{where}: {what}s[{i}]"
        if not isinstance(entry, dict):
            raise SpecError(f"{at}: must be a mapping")
        _no_unknown_keys(at, entry, known)
        yield at, entry


def _number(where: str, value: Any, key: str, lo: float, hi: float, integer: bool = False) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (integer and not isinstance(value, int)):
        raise SpecError(f"{where}: {key}: expected {'an integer' if integer else 'a number'}, got {value!r}")
    if not lo <= value <= hi:
        raise SpecError(f"{where}: {key}: {value!r} is out of range ({lo:g} to {hi:g})")
    return value


def _runs(where: str, raw: Any, files: dict[str, str]) -> list[RunSpec]:
    runs: list[RunSpec] = []
    for at, r in _entries(where, raw, "run", RUN_KEYS):
        name = r.get("name")
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise SpecError(f"{at}: name: required, lower-case letters, digits, - and _ (got {name!r})")
        if any(x.name == name for x in runs):
            raise SpecError(f"{at}: name: {name!r} is used twice")
        at = f"{where}: run {name!r}"
        mode = r.get("mode", "sim")
        if mode not in MAX_NODES:
            raise SpecError(f"{at}: mode: 'sim' or 'live', not {mode!r}")
        time = _number(at, r.get("time", 60), "time", 1, 3600)
        seed = _number(at, r.get("seed", 1), "seed", 0, 2**31 - 1, integer=True)
        net = r.get("net")
        if net is not None:
            if str(SANDBOX) not in sys.path:
                sys.path.insert(0, str(SANDBOX))
            import netmodel  # sandbox/netmodel.py: the models of ./splaylab run --net
            try:
                netmodel.parse_net(str(net))
            except Exception as e:  # noqa: BLE001 - the model parser's own message is the point
                raise SpecError(f"{at}: net: {e}") from None
        churn_path, nodes = r.get("churn"), r.get("nodes")
        if churn_path is not None:
            if churn_path not in files:
                raise SpecError(f"{at}: churn: no file {churn_path}")
            scenario_nodes = _churn_nodes(at, churn_path, files[churn_path], seed)
            if nodes is not None and nodes != scenario_nodes:
                raise SpecError(f"{at}: nodes: {nodes} but {churn_path} uses {scenario_nodes} nodes (leave nodes out)")
            nodes = scenario_nodes
        nodes = _number(at, nodes if nodes is not None else 10, "nodes", 1, MAX_NODES[mode], integer=True)
        learn = r.get("learn", False)
        if not isinstance(learn, bool):
            raise SpecError(f"{at}: learn: true or false, not {learn!r}")
        runs.append(RunSpec(name=name, mode=mode, nodes=nodes, time=float(time), seed=seed,
                            net=str(net) if net is not None else None, churn=churn_path, learn=learn))
    return runs


def _churn_nodes(at: str, path: str, text: str, seed: int) -> int:
    if str(SANDBOX) not in sys.path:
        sys.path.insert(0, str(SANDBOX))
    import churn  # sandbox/churn.py
    try:
        plan = churn.load(text, seed=seed)
    except churn.ChurnError as e:
        raise SpecError(f"{at}: churn: {path}:{e.line}:{e.column}: {e.message}") from None
    if plan.nodes == 0:
        raise SpecError(f"{at}: churn: {path} never starts a node")
    return int(plan.nodes)


def _checks(where: str, raw: Any, runs: list[RunSpec], files: dict[str, str]) -> list[CheckSpec]:
    from . import checks as library  # the registry of library checks and their parameters
    out: list[CheckSpec] = []
    for at, c in _entries(where, raw, "check", CHECK_KEYS):
        name = c.get("name")
        if not isinstance(name, str) or not name.strip():
            raise SpecError(f"{at}: name: required, a text")
        if any(x.name == name for x in out):
            raise SpecError(f"{at}: name: {name!r} is used twice")
        at = f"{where}: check {name!r}"
        kind = c.get("check")
        params = c.get("params") or {}
        if not isinstance(params, dict):
            raise SpecError(f"{at}: params: must be a mapping")
        if not isinstance(kind, str):
            raise SpecError(f"{at}: check: required, a library check or custom:FUNCTION")
        if kind.startswith("custom:"):
            fn = kind.split(":", 1)[1]
            if "checks.py" not in files:
                raise SpecError(f"{at}: check: {kind} needs a checks.py in the folder")
            if not re.search(rf"^def {re.escape(fn)}\(", files["checks.py"], re.M):
                raise SpecError(f"{at}: check: checks.py has no function {fn!r}")
        else:
            known = library.LIBRARY.get(kind)
            if known is None:
                raise SpecError(f"{at}: check: no library check {kind!r} (known: {', '.join(sorted(library.LIBRARY))})")
            bad = set(params) - set(known.params)
            if bad:
                raise SpecError(f"{at}: params: {kind} takes no {sorted(bad)[0]!r} "
                                f"(it takes: {', '.join(sorted(known.params)) or 'nothing'})")
            missing = [p for p, default in known.params.items() if default is library.REQUIRED and p not in params]
            if missing:
                raise SpecError(f"{at}: params: {kind} needs {missing[0]!r}")
        run = c.get("run", runs[0].name)
        if not any(r.name == run for r in runs):
            raise SpecError(f"{at}: run: no run named {run!r} (runs: {', '.join(r.name for r in runs)})")
        weight = _number(at, c.get("weight", 1), "weight", 0.001, 1e6)
        hidden = c.get("hidden", False)
        if not isinstance(hidden, bool):
            raise SpecError(f"{at}: hidden: true or false, not {hidden!r}")
        out.append(CheckSpec(name=name.strip(), check=kind, run=run, weight=float(weight), hidden=hidden,
                             params=params))
    return out
