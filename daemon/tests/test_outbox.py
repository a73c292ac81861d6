"""Outbox: ordering, batching and bounds of messages waiting for the controller."""
from __future__ import annotations

from splayd.outbox import Outbox


def line(node: int, seq: int) -> dict:
    return {"node": node, "seq": seq, "t": 0.0, "level": "print", "text": str(seq)}


def drain(box: Outbox) -> list[dict]:
    out = []
    while (m := box.pop()) is not None:
        out.append(m)
    return out


def test_replies_go_before_logs_and_logs_before_the_instance_end() -> None:
    box = Outbox()
    box.log_line(7, line(1, 1))
    box.instance({"type": "instance", "job": 7, "node": 1, "state": "ENDED"})
    box.reply({"type": "reply", "ref": "r", "ok": True})
    assert [m["type"] for m in drain(box)] == ["reply", "log", "instance"]


def test_a_batch_is_sent_at_200_lines() -> None:
    box = Outbox()
    for s in range(1, 451):
        box.log_line(7, line(1, s))
    assert [len(m["lines"]) for m in box.queue] == [200, 200]
    box.flush_logs()
    assert [len(m["lines"]) for m in drain(box)] == [200, 200, 50]


def test_the_oldest_log_batches_are_dropped_beyond_the_bound_but_never_instance_states() -> None:
    box = Outbox(max_lines=400)
    box.instance({"type": "instance", "job": 7, "node": 1, "state": "RUNNING"})
    for s in range(1, 1001):
        box.log_line(7, line(1, s))
    msgs = drain(box)
    assert msgs[0]["type"] == "instance"
    seqs = [ln["seq"] for m in msgs[1:] for ln in m["lines"]]
    assert seqs == list(range(601, 1001))
    assert box.dropped_lines == 600 and box.queued_lines == 0


def test_a_failed_send_is_put_back_in_front() -> None:
    box = Outbox()
    box.log_line(1, line(1, 1))
    box.flush_logs()
    box.instance({"type": "instance", "job": 1, "node": 1, "state": "ENDED"})
    first = box.pop()
    box.push_front(first)
    assert [m["type"] for m in drain(box)] == ["log", "instance"]
