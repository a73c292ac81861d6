"""Log-bucket histogram of a metric's values (the idea of DDSketch, Masson et al. VLDB 2019).

Bucket i holds the values in (GAMMA^(i-1), GAMMA^i]; its representative value 2·GAMMA^i/(GAMMA+1)
is within 1 % of every value in it, so a CDF or quantile drawn from the buckets is within 1 % of
the exact one, whatever the number of samples. Written here rather than taken from the
`ddsketch` package because the browser reads the same buckets as plain JSON (see
frontend/src/features/metrics) and the package's only serialisation is protobuf."""
from __future__ import annotations

import math
from typing import Any

GAMMA = 1.02
_LOG_GAMMA = math.log(GAMMA)


def bucket_of(v: float) -> int:
    """The bucket index of |v| (v != 0)."""
    return math.ceil(math.log(abs(v)) / _LOG_GAMMA)


def representative(i: int) -> float:
    return 2 * GAMMA ** i / (GAMMA + 1)


def histogram_add(h: dict[str, Any], v: float) -> None:
    """Count v in a histogram stored as {"positive": {"i": n}, "negative": {"i": n}, "zero": n}."""
    if v == 0:
        h["zero"] = h.get("zero", 0) + 1
        return
    side = h.setdefault("positive" if v > 0 else "negative", {})
    key = str(bucket_of(v))
    side[key] = side.get(key, 0) + 1


def histogram_out(h: dict[str, Any]) -> dict[str, Any]:
    """The API form: sorted [index, count] pairs."""
    def pairs(side: str) -> list[list[int]]:
        return sorted([int(i), n] for i, n in h.get(side, {}).items())
    return {"gamma": GAMMA, "positive": pairs("positive"), "negative": pairs("negative"),
            "zero": h.get("zero", 0)}


def histogram_quantile(h: dict[str, Any], q: float) -> float | None:
    """The value below which a fraction q of the counted values lie (nearest rank, ±1 %)."""
    neg = sorted(((int(i), n) for i, n in h.get("negative", {}).items()), reverse=True)
    pos = sorted((int(i), n) for i, n in h.get("positive", {}).items())
    ordered = [(-representative(i), n) for i, n in neg] + [(0.0, h.get("zero", 0))] + \
              [(representative(i), n) for i, n in pos]
    total = sum(n for _, n in ordered)
    if total == 0:
        return None
    rank = max(1, math.ceil(q * total))
    seen = 0
    for value, n in ordered:
        seen += n
        if seen >= rank:
            return value
    return ordered[-1][0]
