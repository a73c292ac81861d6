"""`./splaylab submit` and `./splaylab stop`: SPLAY's command-line client, over the REST API.

Standard library only (urllib), so it runs anywhere Python 3.11 does. Where the server and
token come from, in order: flags, SPLAYLAB_SERVER / SPLAYLAB_TOKEN, then var/cli.json written
by `./splaylab up` (the local server, as the demo student).
"""
from __future__ import annotations

import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

TERMINAL_STATES = {"ENDED", "KILLED", "FAILED", "NO_RESOURCES"}
POLL_SECONDS = 0.25
DEFAULT_NODES = 10


class ClientError(Exception):
    """A problem worth one clear line on stderr (bad server, bad token, bad file)."""


@dataclass(frozen=True)
class Api:
    server: str
    token: str

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        url = self.server.rstrip("/") + path
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Authorization", f"Token {self.token}")
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as err:
            detail = err.read().decode(errors="replace")[:500]
            if err.code == 401:
                raise ClientError(f"{url}: the server refused the token (401). "
                                  "Get yours with `./splaylab token USER` or the web UI's API token page.") from None
            raise ClientError(f"{method} {url} failed with HTTP {err.code}: {detail}") from None
        except urllib.error.URLError as err:
            raise ClientError(f"cannot reach the SplayLab server at {self.server}: {err.reason}. "
                              "Is `make up` running, or is --server right?") from None


def resolve_api(server: str | None, token: str | None, root: Path) -> Api:
    server = server or os.environ.get("SPLAYLAB_SERVER")
    token = token or os.environ.get("SPLAYLAB_TOKEN")
    local = root / "var" / "cli.json"
    if (not server or not token) and local.exists():
        saved = json.loads(local.read_text())
        server = server or saved["server"]
        token = token or saved["token"]
    if not server:
        raise ClientError("no server: pass --server URL or set SPLAYLAB_SERVER (or run `make up` here)")
    if not token:
        raise ClientError("no API token: pass --token or set SPLAYLAB_TOKEN "
                          "(the web UI's API token page shows it)")
    return Api(server, token)


def format_line(line: dict[str, Any], virtual_epoch: float | None = None) -> str:
    """A log line as `./splaylab run` prints it: a simulated job's (virtual_epoch = its start,
    jobs.simulation stamps lines start + virtual time) in virtual seconds."""
    if virtual_epoch is not None:
        # lines are stored to the ms: round before printing (+ 0.0 turns -0.0 into 0.0)
        stamp = f"{round(line['t'] - virtual_epoch, 3) + 0.0:>9.3f}s"
    else:
        stamp = datetime.fromtimestamp(line["t"]).strftime("%H:%M:%S.%f")[:-3]
    return f"node {line['node']:>3} {stamp} {line['level']:<7} {line['text']}"


def _virtual_epoch(job: dict[str, Any]) -> float | None:
    if job.get("mode") != "sim" or not job.get("started_at"):
        return None
    return datetime.fromisoformat(str(job["started_at"]).replace("Z", "+00:00")).timestamp()


def follow(api: Api, job_id: int, out=sys.stdout) -> dict[str, Any]:
    """Print the job's log lines as they arrive; return the job once it is over and drained."""
    after = churn_after = 0
    while True:
        job = api.request("GET", f"/api/jobs/{job_id}/")
        epoch = _virtual_epoch(job)
        while True:
            page = api.request("GET", f"/api/jobs/{job_id}/logs/?after={after}&limit=1000")
            for line in page["lines"]:
                out.write(format_line(line, epoch) + "\n")
            out.flush()
            after = page["next_after"] or after
            if len(page["lines"]) < 1000:
                break
        if job.get("churn"):
            churn_after = _print_churn(api, job_id, churn_after, out)
        if job["state"] in TERMINAL_STATES:
            # Lines may still be in flight from the daemon: one last drain after a short pause.
            time.sleep(POLL_SECONDS * 2)
            page = api.request("GET", f"/api/jobs/{job_id}/logs/?after={after}&limit=1000")
            for line in page["lines"]:
                out.write(format_line(line, epoch) + "\n")
            if len(page["lines"]) < 1000:
                return job
            after = page["next_after"]
            continue
        time.sleep(POLL_SECONDS)


def _print_churn(api: Api, job_id: int, after: int, out) -> int:
    """A churn job's new joins, leaves and fails, one line each; returns the last event id."""
    page = api.request("GET", f"/api/jobs/{job_id}/churn/?after={after}")
    for ev in page["events"]:
        out.write(f"churn    {ev['t']:9.3f} s  {ev['text']}\n")
        after = ev["id"]
    return after


def scenario_id(api: Api, name: str) -> int:
    """A library scenario's id from its name (./splaylab submit --scenario NAME)."""
    library = api.request("GET", "/api/scenarios/")
    for sc in library:
        if sc["name"] == name:
            return int(sc["id"])
    known = ", ".join(sc["name"] for sc in library) or "the library is empty"
    raise ClientError(f"no scenario named '{name}' in the library ({known})")


def network_options(net: str | None, loss: str | None, bandwidth: str | None,
                    partitions: list[str] | None, asymmetric: bool) -> dict[str, Any]:
    """The job's `network` object; a matrix or trace FILE is read here and sent as file_text
    (the server checks everything and answers with the reason)."""
    options: dict[str, Any] = {}
    if net:
        options["net"] = net
        kind, _, rest = net.partition(":")
        if kind in ("matrix", "trace") and rest:
            path = rest.split(":")[0] if kind == "trace" else rest
            try:
                options["file_text"] = Path(path).read_text()
            except OSError as err:
                raise ClientError(f"cannot read {path}: {err.strerror}") from None
    if loss:
        options["loss"] = loss
    if bandwidth:
        options["bandwidth"] = bandwidth
    if partitions:
        options["partitions"] = partitions
    if asymmetric:
        options["asymmetric"] = True
    return options


def trace_option(on: bool, max_events: int | None) -> bool | dict[str, int] | None:
    """The job's `trace` field from --trace [--trace-max-events N]; None: not asked (the
    descriptor decides). The server checks the bounds and answers with the reason."""
    if max_events is not None and not on:
        raise ClientError("--trace-max-events needs --trace")
    if not on:
        return None
    return {"max_events": max_events} if max_events is not None else True


def submit(api: Api, path: Path, nodes: int | None, duration: int | None, name: str | None,
           do_follow: bool, network: dict[str, Any] | None = None, churn: Path | None = None,
           scenario: str | None = None, keep_population: bool = False, sim: bool = False,
           seed: int | None = None, trace: bool | dict[str, int] | None = None) -> int:
    """nodes/duration None: the server takes them from the code's resource descriptor (or
    from the churn scenario: a file, or a library scenario by name). sim: a simulated job."""
    try:
        code = path.read_text()
        churn_text = churn.read_text() if churn is not None else None
    except OSError as err:
        raise ClientError(f"cannot read {err.filename}: {err.strerror}") from None
    if nodes is None and "BEGIN SPLAY RES" not in code and churn is None and scenario is None:
        nodes = DEFAULT_NODES  # no descriptor to take nb_splayds from
    body = {"code": code, "filename": path.name, "nodes": nodes, "duration": duration,
            "name": name or path.stem, "network": network or None, "churn": churn_text,
            "scenario": scenario_id(api, scenario) if scenario else None,
            "keep_population": keep_population or None, "mode": "sim" if sim else None, "seed": seed,
            "trace": trace}
    job = api.request("POST", "/api/jobs/", {k: v for k, v in body.items() if v is not None})
    churn_info = job.get("churn")
    scenario_text = "" if not churn_info else (
        f", churn {churn_info['name'] or (churn.name if churn else 'keep population')}"
        + (f" (+{churn_info['spares']} spares)" if churn_info["spares"] else ""))
    simulated = f" (simulated, seed {job.get('seed')})" if job.get("mode") == "sim" else ""
    if job.get("trace"):
        scenario_text += f", message trace ({job['trace']['max_events']} rows per node)"
    print(f"job {job['id']} submitted{simulated}: {job['nodes']} nodes for {job['duration']} s, network "
          f"{job.get('network', 'lan')}{scenario_text} "
          f"({api.server.rstrip('/')}/jobs/{job['id']})", file=sys.stderr)
    if not do_follow:
        print(job["id"])
        return 0
    job = follow(api, job["id"])
    reason = job.get("reason") or ""
    print(f"job {job['id']} {job['state']}: {reason}", file=sys.stderr)
    return 0 if job["state"] == "ENDED" else 1


def stop(api: Api, job_id: int) -> int:
    job = api.request("POST", f"/api/jobs/{job_id}/stop/", {})
    print(f"job {job_id}: {job['state']} {job.get('reason') or ''}".rstrip())
    return 0


GRADED_STATES = {"graded", "error"}


def assignment_target(api: Api, slug: str, course: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(course, assignment) of the user's courses whose assignment is `slug` (and course slug `course`)."""
    matches = []
    courses = api.request("GET", "/api/courses/")
    for c in courses:
        if course and c["slug"] != course:
            continue
        for a in api.request("GET", f"/api/courses/{c['id']}/assignments/"):
            if a["slug"] == slug:
                matches.append((c, a))
    if not matches:
        where = f"course {course!r}" if course else "any of your courses (" + \
            ", ".join(c["slug"] for c in courses) + ")"
        raise ClientError(f"no assignment {slug!r} in {where}")
    if len(matches) > 1:
        raise ClientError(f"assignment {slug!r} is in several of your courses: pass --course "
                          + " or --course ".join(c["slug"] for c, _ in matches))
    return matches[0]


def submit_assignment(api: Api, path: Path, slug: str, course: str | None, do_follow: bool,
                      out=sys.stdout) -> int:
    """Submit path as a new version for grading; with do_follow, wait for the report and print it."""
    try:
        source = path.read_text()
    except OSError as err:
        raise ClientError(f"cannot read {err.filename}: {err.strerror}") from None
    c, a = assignment_target(api, slug, course)
    sub = api.request("POST", f"/api/courses/{c['id']}/assignments/{slug}/submissions/", {"source": source})
    print(f"submission {sub['id']} of {a['title']} ({c['slug']}): {sub['status']} "
          f"({api.server.rstrip('/')}/submissions/{sub['id']})", file=sys.stderr)
    if not do_follow:
        print(sub["id"], file=out)
        return 0
    while sub["status"] not in GRADED_STATES:
        time.sleep(1)
        sub = api.request("GET", f"/api/submissions/{sub['id']}/")
    if sub["status"] == "error":
        print(f"grading failed: {sub.get('error') or 'no reason given'}", file=out)
        return 1
    late = f", {sub['late_days']} day(s) late: -{sub['penalty_percent']:g} %" if sub["late_days"] else ""
    print(f"{a['title']}: {sub['final_score']:g} / 100{late}", file=out)
    report = sub.get("report") or {}
    if report.get("compile_error"):
        print(f"  does not compile: {report['compile_error']}", file=out)
    for check in report.get("checks", []):
        mark = "PASS" if check["passed"] else "FAIL"
        print(f"  {mark} {check['points']:6.1f}/{check['max_points']:<5g} {check['name']}\n"
              f"        {check['message']}", file=out)
    for run in report.get("runs", []):
        for warning in run.get("warnings", []):   # what the output limits cut
            print(f"  run {run['name']}: {warning}", file=out)
    if sub.get("hidden_withheld"):
        print(f"  ({sub['hidden_withheld']} hidden check(s) count once the deadline has passed)", file=out)
    return 0
