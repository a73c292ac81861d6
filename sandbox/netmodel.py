"""Network models of the emulated wide-area network: from what a user names (`--net king`,
`--loss 1%`, `--partition 10s+20s:0.5`) to the `net` block of each node's job.json.

Python standard library only (the local runner and the controller both import it). The node
side, sandbox/lib/splaylab/netem.lua, applies the block in the sender's transport (delay queue,
loss, bandwidth, partitions); the deterministic simulator will read the same block.

Every delay a model names is a ONE-WAY delay: `const:50ms` gives a 100 ms round trip.

    spec = parse_net("transit-stub", loss="1%", bandwidth="10mbit")
    blocks = compile_job(spec, n=100, seed=7)        # blocks[k-1] is node k's `net`

A node's block (all times in seconds):
    {"model": name, "delay": [one-way delay to node 1..N] or a number,
     "back": [delay from node 1..N to this node] (asymmetric matrices only),
     "jitter": sd of a normal draw around the delay (0: none),
     "trace": {"period": s, "series": [[[ed, mdev], ...] per destination]} (trace model),
     "loss": p, "mtu": bytes, "bandwidth": bytes/s or null,
     "partitions": [{"at": s, "until": s or null, "groups": [group of node 1..N]}]}
Partition times count from the instant the runner or the daemon starts the node (it adds
`epoch`, the wall-clock time of that instant).
"""
from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# the placement models (king, transit-stub), beside this file: in the daemon's runtime folder too
import netmodel_placement

MODELS = ("lan", "const", "jitter", "transit-stub", "king", "matrix", "trace")

# Transit-stub, after SPLAY's ModelNet setup (seed 000, section 5): one-way delays of a link
# inside a domain, between a stub and its transit (and between stubs), between transits.
TRANSIT_STUB = {"transits": 4, "stubs": 8, "intra": 0.010, "stub_transit": 0.030, "transit_transit": 0.100}

TRACE_EWMA_W = 0.125   # WANCE section 3.2


class NetModelError(ValueError):
    """A model, a file or a parameter the user gave is wrong; the message says what and where."""


_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*(us|ms|s)\s*$")
_RATE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*(bit|kbit|mbit|gbit|b|kb|mb|gb)(?:/s|ps)?\s*$", re.I)
_RATE_UNITS = {"bit": 1 / 8, "kbit": 1e3 / 8, "mbit": 1e6 / 8, "gbit": 1e9 / 8,
               "b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9}


def parse_duration(text: str, what: str = "duration") -> float:
    """'50ms' | '1.5s' | '200us' -> seconds."""
    m = _DURATION.match(str(text))
    if not m:
        raise NetModelError(f"bad {what} '{text}': give a number and a unit, e.g. 50ms, 1.5s, 200us")
    value = float(m.group(1))
    return value * {"us": 1e-6, "ms": 1e-3, "s": 1.0}[m.group(2)]


def parse_rate(text: str) -> float:
    """'10mbit' | '500kbit' | '2MB/s' -> bytes per second (bit units are bits, B units bytes)."""
    m = _RATE.match(str(text))
    if not m:
        raise NetModelError(f"bad bandwidth '{text}': give a rate such as 10mbit, 500kbit or 2MB/s")
    rate = float(m.group(1)) * _RATE_UNITS[m.group(2).lower()]
    if rate <= 0:
        raise NetModelError(f"bad bandwidth '{text}': must be more than 0")
    return rate


def parse_loss(text: str | float) -> float:
    """'0.01' | '1%' -> probability in [0, 1)."""
    s = str(text).strip()
    try:
        p = float(s[:-1]) / 100 if s.endswith("%") else float(s)
    except ValueError:
        raise NetModelError(f"bad loss '{text}': give a probability (0.01) or a percentage (1%)") from None
    if not 0 <= p < 1:
        raise NetModelError(f"bad loss '{text}': must be at least 0 and less than 1 (100%)")
    return p


@dataclass
class Partition:
    """Nodes split into groups from `at` (s after start) until `until` (None: never healed)."""
    at: float
    until: float | None
    groups: list[list[int]] | None = None   # explicit positions per group
    fraction: float | None = None           # or: the first fraction of positions vs the rest

    def group_of(self, n: int) -> list[int]:
        """Group number (0-based) of nodes 1..n; nodes no list names form one more group."""
        if self.fraction is not None:
            cut = max(1, min(n - 1, round(self.fraction * n)))
            return [0 if k <= cut else 1 for k in range(1, n + 1)]
        assert self.groups is not None
        out = [len(self.groups)] * n
        for g, members in enumerate(self.groups):
            for k in members:
                if 1 <= k <= n:
                    out[k - 1] = g
        return out


def parse_partition(text: str) -> Partition:
    """'AT[+FOR]:SPEC' with SPEC a fraction ('0.5': the first half of the nodes against the
    rest) or groups of positions ('1-5,9|6-8'). '10s+20s:0.5' splits at 10 s and heals at 30 s."""
    when, sep, spec = str(text).partition(":")
    if not sep or not spec.strip():
        raise NetModelError(f"bad partition '{text}': expected AT[+FOR]:GROUPS, e.g. 10s+20s:0.5 or 5s:1-10|11-20")
    at_text, plus, for_text = when.partition("+")
    at = parse_duration(at_text, "partition start")
    until = at + parse_duration(for_text, "partition length") if plus else None
    spec = spec.strip()
    if re.fullmatch(r"[0-9]*\.[0-9]+|0|1", spec):
        fraction = float(spec)
        if not 0 < fraction < 1:
            raise NetModelError(f"bad partition '{text}': a fraction must lie strictly between 0 and 1")
        return Partition(at, until, fraction=fraction)
    groups = []
    for part in spec.split("|"):
        members: list[int] = []
        for item in part.split(","):
            item = item.strip()
            m = re.fullmatch(r"(\d+)(?:-(\d+))?", item)
            if not m:
                raise NetModelError(f"bad partition '{text}': '{item}' is not a position or a range a-b")
            lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
            if lo < 1 or hi < lo:
                raise NetModelError(f"bad partition '{text}': range '{item}' is empty or starts below 1")
            members.extend(range(lo, hi + 1))
        groups.append(members)
    return Partition(at, until, groups=groups)


@dataclass
class NetSpec:
    """What the user chose for a job's network."""
    model: str = "lan"
    delay: float = 0.0                      # const, jitter: one-way seconds
    jitter: float = 0.0                     # jitter: standard deviation, seconds
    transit_stub: dict[str, float] = field(default_factory=lambda: dict(TRANSIT_STUB))
    matrix: list[list[float]] | None = None  # one-way seconds, row = sender
    trace: dict[tuple[int, int], list[tuple[float, float]]] | None = None   # (src,dst) -> [(t, delay)]
    trace_period: float = 5.0
    loss: float = 0.0
    bandwidth: float | None = None
    mtu: int = 1500
    partitions: list[Partition] = field(default_factory=list)
    text: str = "lan"                       # as the user wrote it (shown in the UI and plots)
    options: dict[str, Any] = field(default_factory=dict)   # the arguments, JSON-able (spec_from_options)

    @property
    def active(self) -> bool:
        """False when the nodes need no emulation at all (LAN, no loss, cap nor partition)."""
        return self.model != "lan" or self.loss > 0 or self.bandwidth is not None or bool(self.partitions)


def parse_net(text: str | None = "lan", *, loss: str | float | None = None, bandwidth: str | None = None,
              partitions: list[str] | tuple[str, ...] = (), asymmetric: bool = False, mtu: int = 1500,
              file_text: str | None = None) -> NetSpec:
    """The CLI's and the API's forms: lan, const:50ms, jitter:50ms:10ms, transit-stub[:T:S],
    king, matrix:FILE, trace:FILE[:PERIOD]. FILE is read here, unless `file_text` gives its
    content (the API: an uploaded file; FILE is then only its name in messages)."""
    text = (text or "lan").strip()
    kind, _, rest = text.partition(":")
    spec = NetSpec(model=kind, text=text)
    args = rest.split(":") if rest else []
    if kind == "lan":
        if args:
            raise NetModelError("lan takes no parameter")
    elif kind == "const":
        if len(args) != 1:
            raise NetModelError("const needs one delay: const:50ms (one-way)")
        spec.delay = parse_duration(args[0], "delay")
    elif kind == "jitter":
        if len(args) != 2:
            raise NetModelError("jitter needs a mean and a deviation: jitter:50ms:10ms (one-way)")
        spec.delay = parse_duration(args[0], "delay")
        spec.jitter = parse_duration(args[1], "jitter")
    elif kind == "transit-stub":
        if args:
            if len(args) != 2 or not all(a.isdigit() and int(a) > 0 for a in args):
                raise NetModelError("transit-stub takes two counts: transit-stub:TRANSITS:STUBS_PER_TRANSIT")
            spec.transit_stub.update(transits=int(args[0]), stubs=int(args[1]))
    elif kind == "king":
        if args:
            raise NetModelError("king takes no parameter")
    elif kind == "matrix":
        if not rest:
            raise NetModelError("matrix needs a file: matrix:FILE (CSV, p2psim E2EGraph or King text)")
        spec.matrix = parse_matrix(_read(rest, "matrix") if file_text is None else file_text, rest,
                                   asymmetric=asymmetric)
    elif kind == "trace":
        if not args:
            raise NetModelError("trace needs a file: trace:FILE (CSV lines time_s,src,dst,delay_ms)")
        path = args[0]
        if len(args) > 1:
            spec.trace_period = parse_duration(args[1], "trace period")
        spec.trace = parse_trace(_read(path, "trace") if file_text is None else file_text, path)
    else:
        raise NetModelError(f"unknown network model '{kind}': choose one of {', '.join(MODELS)}")
    if loss is not None:
        spec.loss = parse_loss(loss)
    if bandwidth:
        spec.bandwidth = parse_rate(bandwidth)
    spec.partitions = [parse_partition(p) for p in partitions]
    if mtu < 68:
        raise NetModelError(f"bad MTU {mtu}: at least 68 bytes")
    spec.mtu = mtu
    spec.options = {"net": text, "loss": loss, "bandwidth": bandwidth, "partitions": list(partitions),
                    "asymmetric": asymmetric, "mtu": mtu}
    if file_text is not None:
        spec.options["file_text"] = file_text
    return spec


def spec_from_options(options: dict[str, Any] | None) -> NetSpec:
    """The inverse of NetSpec.options (what the controller stores and sends to daemons)."""
    o = options or {}
    return parse_net(o.get("net") or "lan", loss=o.get("loss"), bandwidth=o.get("bandwidth"),
                     partitions=o.get("partitions") or (), asymmetric=bool(o.get("asymmetric")),
                     mtu=int(o.get("mtu") or 1500), file_text=o.get("file_text"))


def _read(path: str, what: str) -> str:
    try:
        return Path(path).read_text()
    except OSError as e:
        raise NetModelError(f"cannot read the {what} {path}: {e.strerror}") from None


# -- matrices ----------------------------------------------------------------------------------

def _numbers(line: str, path: str, lineno: int, sep: str | None) -> list[float]:
    cells = [c for c in (line.split(sep) if sep else line.split()) if c.strip()]
    try:
        return [float(c) for c in cells]
    except ValueError:
        bad = next(c for c in cells if not _is_number(c))
        raise NetModelError(f"{path}:{lineno}: '{bad.strip()}' is not a number") from None


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def load_matrix(path: str | Path, *, asymmetric: bool = False, fmt: str | None = None) -> list[list[float]]:
    """Read a delay matrix -> one-way delays in seconds, row = sender. Formats (detected, or
    `fmt`): csv (N rows of N one-way delays in ms, commas), king (N lines of N RTTs in
    microseconds, blanks: the King data set's layout; one-way = RTT / 2), e2e (p2psim's
    E2EGraph: 'topology E2EGraph N', 'node K' lines, then 'i,j delay_ms' for i < j)."""
    return parse_matrix(_read(str(path), "matrix"), str(path), asymmetric=asymmetric, fmt=fmt)


def parse_matrix(text: str, path: str, *, asymmetric: bool = False, fmt: str | None = None) -> list[list[float]]:
    """load_matrix on a file's content; `path` names it in messages."""
    lines = [(i, ln.strip()) for i, ln in enumerate(text.splitlines(), 1)
             if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        raise NetModelError(f"{path}: empty matrix")
    if fmt is None:
        first = lines[0][1]
        if first.lower().startswith("topology") or re.match(r"^node\s", first) or re.match(r"^\d+,\d+\s", first):
            fmt = "e2e"
        elif "," in first:
            fmt = "csv"
        else:
            fmt = "king"
    if fmt == "e2e":
        m = _load_e2e(lines, str(path))
    else:
        scale = 1e-3 if fmt == "csv" else 0.5e-6
        rows = [_numbers(ln, str(path), i, "," if fmt == "csv" else None) for i, ln in lines]
        n = len(rows)
        for (i, _), row in zip(lines, rows):
            if len(row) != n:
                raise NetModelError(f"{path}:{i}: the matrix is not square: {n} rows but {len(row)} values here")
        m = [[v * scale for v in row] for row in rows]
    check_matrix(m, str(path), asymmetric=asymmetric)
    return m


def _load_e2e(lines: list[tuple[int, str]], path: str) -> list[list[float]]:
    n = None
    pairs: list[tuple[int, int, float, int]] = []
    nodes = 0
    for i, ln in lines:
        words = ln.split()
        if words[0].lower() == "topology":
            if len(words) < 3 or not words[2].isdigit():
                raise NetModelError(f"{path}:{i}: expected 'topology E2EGraph N'")
            n = int(words[2])
        elif words[0] == "node":
            nodes += 1
        elif words[0] == "failure_model":
            continue
        else:
            mm = re.fullmatch(r"(\d+),(\d+)", words[0])
            if not mm or len(words) < 2 or not _is_number(words[1]):
                raise NetModelError(f"{path}:{i}: expected 'i,j delay_ms', got '{ln}'")
            pairs.append((int(mm.group(1)), int(mm.group(2)), float(words[1]), i))
    if n is None:
        n = max([nodes] + [max(a, b) for a, b, _, _ in pairs])
    m = [[0.0] * n for _ in range(n)]
    seen = [[False] * n for _ in range(n)]
    for a, b, v, i in pairs:
        if not (1 <= a <= n and 1 <= b <= n):
            raise NetModelError(f"{path}:{i}: node {max(a, b)} beyond the topology's {n} nodes")
        if v < 0:
            raise NetModelError(f"{path}:{i}: negative delay {v:g} between {a} and {b} (a missing "
                                f"measurement? remove the pair's nodes or fill it in)")
        m[a - 1][b - 1] = m[b - 1][a - 1] = v * 1e-3
        seen[a - 1][b - 1] = seen[b - 1][a - 1] = True
    for a in range(n):
        for b in range(a + 1, n):
            if not seen[a][b]:
                raise NetModelError(f"{path}: no delay between nodes {a + 1} and {b + 1}")
    return m


def check_matrix(m: list[list[float]], where: str, *, asymmetric: bool = False) -> None:
    n = len(m)
    for i in range(n):
        for j in range(n):
            v = m[i][j]
            if v < 0 or math.isnan(v):
                raise NetModelError(f"{where}: negative delay {v:g} at row {i + 1}, column {j + 1}")
            if not asymmetric and j > i and abs(v - m[j][i]) > 1e-9 + 1e-6 * max(v, m[j][i]):
                raise NetModelError(
                    f"{where}: asymmetric: row {i + 1}, column {j + 1} is {v * 1e3:g} ms but row {j + 1}, "
                    f"column {i + 1} is {m[j][i] * 1e3:g} ms (pass --asymmetric if that is intended)")


# -- traces (WANCE section 3.2) ----------------------------------------------------------------

def load_trace(path: str | Path) -> dict[tuple[int, int], list[tuple[float, float]]]:
    """CSV lines 'time_s,src,dst,delay_ms' (one-way delay samples of the pair src -> dst; '#'
    comments) -> {(src, dst): [(t, delay_s), ...] sorted by time}."""
    return parse_trace(_read(str(path), "trace"), str(path))


def parse_trace(text: str, path: str) -> dict[tuple[int, int], list[tuple[float, float]]]:
    out: dict[tuple[int, int], list[tuple[float, float]]] = {}
    for i, row in enumerate(csv.reader(text.splitlines()), 1):
        if not row or row[0].lstrip().startswith("#") or row[0].strip() == "time_s":
            continue
        if len(row) != 4:
            raise NetModelError(f"{path}:{i}: expected time_s,src,dst,delay_ms, got {len(row)} fields")
        try:
            t, src, dst, d = float(row[0]), int(row[1]), int(row[2]), float(row[3])
        except ValueError:
            raise NetModelError(f"{path}:{i}: expected numbers time_s,src,dst,delay_ms") from None
        if d < 0 or src < 1 or dst < 1:
            raise NetModelError(f"{path}:{i}: negative delay or a node below 1")
        out.setdefault((src, dst), []).append((t, d * 1e-3))
    if not out:
        raise NetModelError(f"{path}: no sample")
    for samples in out.values():
        samples.sort()
    return out


def ewma_series(samples: list[tuple[float, float]], period: float, until: float) -> list[list[float]]:
    """Per period from t = 0: [ED, mdev] with ED = (1-w) ED + w sample and mdev = (1-w) mdev +
    w |sample - ED| over the samples seen so far (WANCE); periods before the first sample use it."""
    series: list[list[float]] = []
    ed, mdev = samples[0][1], 0.0
    i = 0
    for step in range(int(until / period) + 1):
        t = step * period
        while i < len(samples) and samples[i][0] <= t:
            s = samples[i][1]
            mdev = (1 - TRACE_EWMA_W) * mdev + TRACE_EWMA_W * abs(s - ed)
            ed = (1 - TRACE_EWMA_W) * ed + TRACE_EWMA_W * s
            i += 1
        series.append([round(ed, 6), round(mdev, 6)])
    return series


# -- compilation -------------------------------------------------------------------------------

def delay_rows(spec: NetSpec, n: int, seed: int, senders: list[int] | None = None) -> list[list[float]] | None:
    """One-way delay from node i to node j (seconds): one row per sender (0-based; all n when
    `senders` is None), or None when every pair has spec.delay (lan, const, jitter, trace)."""
    if spec.model in ("lan", "const", "jitter", "trace"):
        return None
    who = list(range(n)) if senders is None else senders
    if spec.model in ("king", "transit-stub"):
        return netmodel_placement.delay_rows(spec.model, n, seed, spec.transit_stub, who)
    if spec.model == "matrix":
        assert spec.matrix is not None
        m = len(spec.matrix)   # node k takes row (k - 1) mod M: more nodes than rows reuse rows
        return [[0.0 if i == j else spec.matrix[i % m][j % m] for j in range(n)] for i in who]
    raise NetModelError(f"unknown network model '{spec.model}'")


def compile_job(spec: NetSpec, n: int, seed: int = 0, duration: float = 3600,
                positions: list[int] | None = None) -> list[dict[str, Any]] | None:
    """Each node's `net` block (index k-1 for node k; with `positions`, only those nodes' blocks,
    in that order: a daemon compiles its own instances'), or None when nothing is emulated."""
    if not spec.active:
        return None
    senders = [p - 1 for p in positions] if positions is not None else list(range(n))
    rows = delay_rows(spec, n, seed, senders)
    m = spec.matrix
    asym = spec.model == "matrix" and m is not None and any(
        abs(m[i][j] - m[j][i]) > 1e-9 for i in range(len(m)) for j in range(i))
    parts = [{"at": p.at, "until": p.until, "groups": p.group_of(n)} for p in spec.partitions]
    blocks = []
    for idx, k in enumerate(senders):
        block: dict[str, Any] = {
            "model": spec.model, "loss": spec.loss, "mtu": spec.mtu, "bandwidth": spec.bandwidth,
            "jitter": spec.jitter, "partitions": parts,
            "delay": rows[idx] if rows is not None else spec.delay,
        }
        if asym and m is not None:
            block["back"] = [0.0 if j == k else m[j % len(m)][k % len(m)] for j in range(n)]
        if spec.model == "trace":
            assert spec.trace is not None
            series = []
            for j in range(n):
                samples = spec.trace.get((k + 1, j + 1)) or spec.trace.get((j + 1, k + 1))
                series.append(ewma_series(samples, spec.trace_period, duration) if samples and j != k else [])
            block["trace"] = {"period": spec.trace_period, "series": series}
            block["delay"] = 0.0
        blocks.append(block)
    return blocks


def rtt_percentiles(spec: NetSpec, n: int, seed: int = 0, points: tuple[int, ...] = (10, 25, 50, 75, 90, 99)
                    ) -> dict[str, float]:
    """RTT distribution over all pairs (ms): percentiles and mean (docs' calibration table)."""
    rows = delay_rows(spec, n, seed)
    if rows is None:
        rtt = [2 * spec.delay * 1e3]
    else:
        rtt = sorted((rows[i][j] + rows[j][i]) * 1e3 for i in range(n) for j in range(i + 1, n))
    out = {f"p{p}": rtt[min(len(rtt) - 1, int(p / 100 * len(rtt)))] for p in points}
    out["mean"] = sum(rtt) / len(rtt)
    return out


def with_overlay(blocks: list[dict[str, Any]] | None, overlay: dict[str, list[dict]] | None, count: int,
                 mtu: int = 1500) -> list[dict[str, Any]] | None:
    """A churn scenario's network statements (churn.network_overlay: partitions and
    loss/latency phases) added to `count` nodes' blocks; a LAN gets plain blocks to carry them."""
    if not overlay:
        return blocks
    if blocks is None:
        blocks = [{"model": "lan", "loss": 0.0, "mtu": mtu, "bandwidth": None, "jitter": 0.0,
                   "partitions": [], "delay": 0.0} for _ in range(count)]
    for block in blocks:
        block["partitions"] = list(block["partitions"]) + overlay["partitions"]
        block["phases"] = overlay["phases"]
    return blocks
