"""`./splaylab trace JOB|FILE`: the runtime's message trace of a job or a local run (docs/trace.md).

    ./splaylab trace JOB  [--server URL] [--token T] [filters] [--summary | --json]
    ./splaylab trace FILE [filters] [--summary | --json]

JOB (a number) is fetched from GET /api/jobs/<id>/trace/ (server and token as for `submit`);
FILE is the JSONL of `./splaylab run --out`, whose `"kind": "trace"` records carry `rows` in
seconds since the run started. Prints one line per row (time, node, type, peer, name, bytes
out and in, outcome, operation, depth, duration, and the count of an aggregate row), sorted by
time, then the summary: per node (messages and bytes out/in, distinct peers, capped) and per
operation (messages, bytes, deepest call). --node, --op and --type choose the rows listed and
summed. --summary prints only the summary, --json {columns, rows, summary}.

Exit status: 0, 1 when there is no trace (a file without trace records, a job without rows),
2 on bad usage, an unreadable file or a server that cannot answer.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import IO, Any

from lib.trace import NODE_COLUMNS, TYPES, Summary, row_clean

ROOT = Path(__file__).resolve().parents[2]
PAGE_CHUNKS = 1000


class TraceError(Exception):
    """One line for stderr; `status` is the exit status."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def rows_from_file(path: Path) -> list[list[Any]]:
    """Rows of a run's JSONL as [t, node, type, ...] (NODE_COLUMNS); malformed rows are
    skipped with one warning per record."""
    try:
        text = path.read_text()
    except OSError as e:
        raise TraceError(f"cannot read {path}: {e.strerror}") from None
    rows: list[list[Any]] = []
    found = False
    for lineno, line in enumerate(text.splitlines(), 1):
        try:
            rec = json.loads(line)
        except ValueError:
            continue  # a run cut short may end in half a line
        if not isinstance(rec, dict) or rec.get("kind") != "trace":
            continue
        found = True
        node, batch = rec.get("node"), rec.get("rows")
        if not isinstance(node, int) or isinstance(node, bool) or not isinstance(batch, list):
            print(f"{path}:{lineno}: trace record without node or rows, skipped", file=sys.stderr)
            continue
        bad, why = 0, ""
        for raw in batch:
            row, reason = row_clean(raw)
            if row is None:
                bad, why = bad + 1, why or reason
            else:
                rows.append([row[0], node, *row[1:]])
        if bad:
            print(f"{path}:{lineno}: {bad} malformed trace row(s) skipped ({why})", file=sys.stderr)
    if not found:
        # Say how to get one, as for a job: `run --out` traces only with --trace (live) or --sim.
        raise TraceError(f"{path}: no trace records (kind \"trace\"): the run had no message trace; "
                         "run it again with --trace (or --sim, which always traces)", status=1)
    return rows


def rows_from_job(api: Any, job_id: int, node: int | None,
                  summary_only: bool = False) -> tuple[list[list[Any]], dict[str, Any]]:
    """Every row of the job (pages of chunks, of node `node` only when given) and the server's
    summary of the whole job; `summary_only`: one small page, for its summary."""
    rows: list[list[Any]] = []
    after = 0
    while True:
        limit = 1 if summary_only else PAGE_CHUNKS
        query = f"?after={after}&limit={limit}" + (f"&node={node}" if node is not None else "")
        page = api.request("GET", f"/api/jobs/{job_id}/trace/{query}")
        rows += page["rows"]
        if summary_only or page["next_after"] == after:
            break
        after = page["next_after"]
    if not rows:
        if page["trace"] is None:
            raise TraceError(f"job {job_id} has no message trace: submit it with --trace "
                             "(or `trace true` in its resource descriptor)", status=1)
        raise TraceError(f"job {job_id} has no trace rows" + (f" of node {node}" if node is not None else "")
                         + " (yet)", status=1)
    return rows, page["summary"]


def select(rows: list[list[Any]], node: int | None, op: str | None, types: set[str] | None) -> list[list[Any]]:
    return [r for r in rows if (node is None or r[1] == node) and (op is None or r[8] == op)
            and (types is None or r[2] in types)]


def summarize(rows: list[list[Any]], all_rows: list[list[Any]]) -> dict[str, Any]:
    """The summary of the rows chosen; a node is capped if any of its rows says so, chosen or not."""
    summary = Summary()
    by_node: dict[int, list[list[Any]]] = {}
    for r in rows:
        by_node.setdefault(r[1], []).append([r[0], *r[2:]])
    for node, node_rows in by_node.items():
        summary.add(node, node_rows)
    summary.mark_capped({r[1] for r in all_rows if r[2] == "capped"})
    return summary.to_dict()


def _duration(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms" if seconds < 1 else f"{seconds:.3f} s"


def format_row(r: list[Any]) -> str:
    t, node, kind, peer, name, out, inn, outcome, op, depth, dur, count = r
    if kind == "capped":
        return (f"{t:>10.3f} s  node {node:>4}  capped   listing stopped after {count} rows: "
                "the rows after it add up events (count)")
    line = (f"{t:>10.3f} s  node {node:>4}  {kind:<7}  {str(peer) if peer not in (0, '') else '-':<21}  "
            f"{name or '-':<18} {out:>8} B out {inn:>8} B in  {outcome:<8} {op or '-':<18} "
            f"depth {depth:<2} {_duration(dur):>12}")
    return line + (f"  x{count}" if count > 1 else "")


def format_summary(summary: dict[str, Any]) -> list[str]:
    nodes = summary["nodes"]
    lines = [f"summary: {summary['totals']['rows']} rows from {len(nodes)} node(s)",
             f"{'node':>6} {'rows':>8} {'msgs out':>9} {'msgs in':>8} {'bytes out':>11} {'bytes in':>11} "
             f"{'peers':>6}  capped"]
    for n in nodes:
        lines.append(f"{n['node']:>6} {n['rows']:>8} {n['messages_out']:>9} {n['messages_in']:>8} "
                     f"{n['bytes_out']:>11} {n['bytes_in']:>11} {n['peers']:>6}  {'yes' if n['capped'] else ''}".rstrip())
    tot = summary["totals"]
    lines.append(f"{'total':>6} {tot['rows']:>8} {tot['messages_out']:>9} {tot['messages_in']:>8} "
                 f"{tot['bytes_out']:>11} {tot['bytes_in']:>11}")
    if summary["ops"]:
        width = max(18, *(len(o["op"]) for o in summary["ops"]))
        lines.append(f"{'op':<{width}} {'name':<18} {'messages':>9} {'bytes':>11} {'max depth':>10}")
        for o in summary["ops"]:
            lines.append(f"{o['op']:<{width}} {o['name'] or '-':<18} {o['messages']:>9} {o['bytes']:>11} "
                         f"{o['max_depth']:>10}")
    if summary["ops_truncated"]:
        lines.append("(more operations than the summary keeps: the list above is not all of them)")
    if summary["capped"]:
        capped = ", ".join(str(n["node"]) for n in nodes if n["capped"])
        lines.append(f"capped: node(s) {capped} listed only their first rows, then aggregated; "
                     "every count above is exact (docs/trace.md)")
    return lines


def _types(text: str | None) -> set[str] | None:
    if text is None:
        return None
    types = {t.strip() for t in text.split(",") if t.strip()}
    unknown = sorted(types - set(TYPES))
    if unknown or not types:
        raise TraceError(f"--type: unknown type {unknown[0] if unknown else text!r} (known: {', '.join(TYPES)})")
    return types


def main(argv: list[str], out: IO[str] = sys.stdout) -> int:
    p = argparse.ArgumentParser(prog="splaylab trace", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("source", metavar="JOB|FILE", help="a job id, or a JSONL file of ./splaylab run --out")
    p.add_argument("--server", help="with JOB: e.g. http://lab.example.edu:8000 (or SPLAYLAB_SERVER)")
    p.add_argument("--token", help="with JOB: API token (or SPLAYLAB_TOKEN)")
    p.add_argument("--node", type=int, metavar="K", help="only the rows node K wrote")
    p.add_argument("--op", metavar="ID", help="only the rows of this operation, e.g. 3:1718000000000:7")
    p.add_argument("--type", metavar="T,T", help=f"only these row types ({', '.join(TYPES)})")
    p.add_argument("--summary", action="store_true", help="only the summary")
    p.add_argument("--json", action="store_true", help="print {columns, rows, summary} as JSON")
    args = p.parse_args(argv)
    try:
        types = _types(args.type)
        filtered = args.node is not None or args.op is not None or types is not None
        if args.source.isdigit() and not Path(args.source).exists():
            from cli import client
            try:
                api = client.resolve_api(args.server, args.token, ROOT)
                # the server's summary is the whole job's: it stands when nothing is left out
                summary_only = args.summary and not filtered
                all_rows, server_summary = rows_from_job(api, int(args.source), args.node, summary_only)
                if not summary_only:
                    server_summary = None  # the rows' own, so that listing and summary agree
            except client.ClientError as e:
                raise TraceError(str(e)) from None
        else:
            all_rows, server_summary = rows_from_file(Path(args.source)), None
    except TraceError as e:
        print(f"splaylab trace: {e}", file=sys.stderr)
        return e.status
    rows = select(all_rows, args.node, args.op, types)
    rows.sort(key=lambda r: (r[0], r[1]))
    summary = server_summary or summarize(rows, all_rows)
    if args.json:
        json.dump({"columns": list(NODE_COLUMNS), "rows": [] if args.summary else rows, "summary": summary}, out)
        out.write("\n")
        return 0
    if not args.summary:
        for r in rows:
            out.write(format_row(r) + "\n")
        out.write("\n")
    out.write("\n".join(format_summary(summary)) + "\n")
    return 0
