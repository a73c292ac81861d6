"""Student submissions graded end to end (tests/grading/submissions/ASSIGNMENT/*.lua, the real
grader on simulated runs): correct implementations written unlike the reference must score at
least their bound (90), and cheating submissions at most theirs.

Every file says in its header comment what it is, the exploit (cheats), the honest work it
contains (`-- honest work: ...`), its score with the grader of the day it was written
(`-- today: N/100`) and its bound, one line `-- at least: N` (correct work) or `-- at most: N`
(a cheat: the points its honest work deserves). A cheat's bound fails as long as the grader
trusts what the exploit abuses (records the app can write, hop counts the app returns, tables of
the runtime the app can replace, the population the app chooses to keep alive...).

One test per file; files of one assignment run one after the other, so the reference runs once
per assignment (the module's cache). ~40 gradings of 1 to 10 s each on a 2-core machine."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from grading.grader import grade, load_assignment

ROOT = Path(__file__).resolve().parents[2]
SUBMISSIONS = Path(__file__).resolve().parent / "submissions"
FILES = sorted(SUBMISSIONS.glob("*/*.lua"))
BOUND = re.compile(r"^-- at (most|least): (\d+(?:\.\d+)?)\s*$", re.M)


def header(path: Path) -> list[str]:
    """The file's leading comment lines."""
    out = []
    for line in path.read_text().splitlines():
        if not line.startswith("--"):
            break
        out.append(line)
    return out


def bound(path: Path) -> tuple[str, float]:
    found = BOUND.findall("\n".join(header(path)))
    assert len(found) == 1, f"{path.name}: its header needs exactly one '-- at most: N' or '-- at least: N' line"
    kind, value = found[0]
    return kind, float(value)


def describe(path: Path) -> str:
    """The file's exploit (or description), for failure messages."""
    lines = header(path)
    exploit = [line for line in lines if line.startswith("-- exploit:")]
    return (exploit or lines[:1] or [""])[0].removeprefix("-- ")


@pytest.fixture(scope="module")
def assignments():
    loaded: dict[str, object] = {}

    def get(name: str):
        if name not in loaded:
            loaded[name] = load_assignment(ROOT / "assignments" / name)
        return loaded[name]
    return get


def test_every_submission_says_what_it_is_and_its_bound() -> None:
    assert {p.parent.name for p in FILES} == {"chord", "chord-ft", "gossip", "cyclon"}
    for path in FILES:
        lines = header(path)
        text = "\n".join(lines)
        kind, _ = bound(path)
        assert "-- honest work:" in text, f"{path.name}: no '-- honest work:' line"
        assert re.search(r"^-- today: [\d.]+/100$", text, re.M), f"{path.name}: no '-- today: N/100' line"
        if kind == "most":
            assert "-- exploit:" in text, f"{path.name}: a cheat's header names its exploit"
        else:
            assert path.name.startswith("correct-"), f"{path.name}: only correct-*.lua files have a lower bound"
    assert sum(1 for p in FILES if p.parent.name == "chord" and p.name.startswith("correct-")) >= 2
    assert sum(1 for p in FILES if p.parent.name == "chord-ft" and p.name.startswith("correct-")) >= 2


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_the_submission_scores_within_its_bound(path: Path, assignments, cache, monkeypatch) -> None:
    kind, value = bound(path)
    if "-- seeds: secret" in "\n".join(header(path)):
        # a cheat that replays the seeds: graded as an installation grades (conftest.py runs the
        # spec's own seeds, which a submission can find from its own first draw)
        monkeypatch.setenv("SPLAYLAB_GRADING_KEY", "splaylab-tests-secret")
    report = grade(assignments(path.parent.name), path.read_text(), cache_dir=cache).to_dict()
    score = report["score"]
    checks = "\n".join(f"  {'PASS' if c['passed'] else 'FAIL'} {c['points']:g}/{c['max_points']:g} "
                       f"{c['name']}: {c['message']}" for c in report["checks"])
    failures = "".join(f"\n  run {r['name']}: {r['failure']}" for r in report["runs"] if r.get("failure"))
    if kind == "least":
        assert score >= value, f"{path.name} scored {score}, needs at least {value:g}:\n{checks}{failures}"
    else:
        assert score <= value, (f"{path.name} scored {score}, its honest work deserves at most {value:g}\n"
                                f"({describe(path)}):\n{checks}{failures}")
