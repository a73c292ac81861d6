"""ViewerOutbox (logs/outbox.py): merging a live viewer's pending messages, skipping its lines
past the bound, in order."""
import json

import pytest

from logs.outbox import ViewerOutbox
from logs.payloads import browser_text, log_lines_message, metric_chunks_message


def _lines(node: int, first_seq: int, count: int, first_id: int) -> list[dict]:
    return [{"id": first_id + k, "node": node, "seq": first_seq + k, "t": 1.0 + k, "level": "print",
             "text": f"n{node} s{first_seq + k}"} for k in range(count)]


def _add(box: ViewerOutbox, lines: list[dict]) -> None:
    message = log_lines_message(1, lines)
    box.add_lines(message["text"], message["spans"])


def test_consecutive_batches_become_one_frame_with_every_line_in_order() -> None:
    box = ViewerOutbox(backlog_bytes=10**6)
    batches = [_lines(1, 1, 3, 100), _lines(2, 1, 2, 103), _lines(1, 4, 1, 105)]
    for batch in batches:
        _add(box, batch)
    [frame] = box.take()
    assert json.loads(frame) == {"type": "log.lines", "lines": [ln for b in batches for ln in b]}
    assert box.take() == [] and not box.pending


def test_metric_chunks_go_before_the_lines_of_their_run_and_other_frames_keep_their_place() -> None:
    box = ViewerOutbox(backlog_bytes=10**6)
    chunk = {"id": 1, "name": "rtt", "kind": "observe", "node": [1], "t": [1.0], "value": [0.5], "fields": None}
    _add(box, _lines(1, 1, 1, 10))
    box.add_chunks(metric_chunks_message(1, [chunk])["text"])
    _add(box, _lines(1, 3, 1, 11))  # seq 2 was the metric record
    state = browser_text({"type": "job.state", "job": {"id": 1, "state": "ENDED"}})
    box.add_frame(state)
    _add(box, _lines(1, 4, 1, 12))
    frames = [json.loads(f) for f in box.take()]
    assert [f["type"] for f in frames] == ["metric.chunks", "log.lines", "job.state", "log.lines"]
    assert frames[0]["chunks"] == [chunk]
    assert [ln["seq"] for ln in frames[1]["lines"]] == [1, 3]
    assert [ln["seq"] for ln in frames[3]["lines"]] == [4]


def test_lines_past_the_bound_are_skipped_and_named_per_node() -> None:
    three_batches = sum(len(log_lines_message(1, _lines(1, 1 + 5 * k, 5, 1 + 5 * k))["text"]) for k in range(3))
    box = ViewerOutbox(backlog_bytes=three_batches - 1)
    # node 1: seqs 1-20 (ids 1-20), node 2: seqs 1-5 (ids 21-25); the fourth batch comes when the
    # three before it are past the bound: all four are skipped; node 2's starts a new backlog
    for k in range(4):
        _add(box, _lines(1, 1 + 5 * k, 5, 1 + 5 * k))
    _add(box, _lines(2, 1, 5, 21))
    frames = [json.loads(f) for f in box.take()]
    assert frames[0] == {"type": "log.skipped", "skipped": 20,
                         "gaps": [{"node": 1, "after_id": 0, "before_id": 21, "from_seq": 1, "to_seq": 20}]}
    assert frames[1] == {"type": "log.lines", "lines": _lines(2, 1, 5, 21)}
    assert len(frames) == 2


def test_the_skip_is_sent_once_then_lines_flow_again() -> None:
    box = ViewerOutbox(backlog_bytes=1)
    _add(box, _lines(3, 5, 2, 48))  # one batch, however large, is sent
    assert [json.loads(f)["type"] for f in box.take()] == ["log.lines"]
    _add(box, _lines(3, 7, 1, 50))
    _add(box, _lines(3, 8, 1, 51))
    frames = [json.loads(f) for f in box.take()]
    assert frames == [{"type": "log.skipped", "skipped": 2,
                       "gaps": [{"node": 3, "after_id": 49, "before_id": 52, "from_seq": 7, "to_seq": 8}]}]
    _add(box, _lines(3, 9, 1, 52))
    assert [json.loads(f)["type"] for f in box.take()] == ["log.lines"]


def test_a_backlog_of_other_frames_past_the_bound_overflows() -> None:
    box = ViewerOutbox(backlog_bytes=100)
    box.add_frame(browser_text({"type": "churn.events", "events": ["x" * 200]}))
    assert not box.overflowed  # one frame, however large, is sent
    box.add_frame(browser_text({"type": "churn.events", "events": ["x" * 50]}))
    assert box.overflowed
    box.take()
    assert not box.overflowed


def test_a_bound_below_one_byte_is_refused() -> None:
    with pytest.raises(ValueError, match="backlog_bytes"):
        ViewerOutbox(backlog_bytes=0)
