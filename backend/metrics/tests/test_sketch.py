"""metrics.sketch: the log-bucket histogram's 1 % promise."""
import random

from metrics.sketch import GAMMA, bucket_of, histogram_add, histogram_out, histogram_quantile, representative


def test_representative_is_within_one_percent_of_every_value_in_its_bucket() -> None:
    rng = random.Random(4)
    for _ in range(10_000):
        v = 10 ** rng.uniform(-6, 6)
        assert abs(representative(bucket_of(v)) - v) / v <= (GAMMA - 1) / (GAMMA + 1) + 1e-12


def test_quantiles_match_the_exact_ones_within_one_percent() -> None:
    rng = random.Random(7)
    values = [rng.lognormvariate(-1.5, 0.8) for _ in range(5000)]
    h: dict = {}
    for v in values:
        histogram_add(h, v)
    exact = sorted(values)
    for q in (0.1, 0.5, 0.9, 0.99):
        true = exact[max(0, -(-int(q * 5000 * 1000) // 1000) - 1)]
        assert abs(histogram_quantile(h, q) - true) / true < 0.011


def test_zero_and_negative_values_are_ordered_below_positive_ones() -> None:
    h: dict = {}
    for v in (-4.0, -1.0, 0.0, 0.0, 2.0):
        histogram_add(h, v)
    assert histogram_quantile(h, 0.2) == -representative(bucket_of(-4.0))
    assert histogram_quantile(h, 0.6) == 0.0
    assert histogram_quantile(h, 1.0) == representative(bucket_of(2.0))
    out = histogram_out(h)
    assert out["zero"] == 2 and [n for _, n in out["negative"]] == [1, 1] and out["positive"] == [[bucket_of(2.0), 1]]
    assert histogram_quantile({}, 0.5) is None
