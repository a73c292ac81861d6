"""Outbox: ordering, batching and bounds of messages waiting for the controller."""
from __future__ import annotations

from splayd.outbox import Outbox, log_batches


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


def test_a_tick_journals_every_jobs_lines_as_one_frame() -> None:
    box = Outbox()
    for job in (3, 4, 5):
        box.log_line(job, line(1, 1))
        box.log_line(job, line(2, 1))
    box.flush_logs()
    frames = drain(box)
    assert [m["type"] for m in frames] == ["logs"]
    batches = log_batches(frames[0])
    assert [(b["job"], [ln["node"] for ln in b["lines"]]) for b in batches] == [(3, [1, 2]), (4, [1, 2]), (5, [1, 2])]
    # one job alone keeps the one-job frame
    box.log_line(3, line(1, 2))
    box.flush_logs()
    assert [(m["type"], m["job"]) for m in drain(box)] == [("log", 3)]


def test_a_multi_job_frame_is_dropped_with_its_lines_counted_and_never_an_instance_state() -> None:
    box = Outbox(max_bytes=20_000, segment_bytes=4_000)
    box.instance({"type": "instance", "job": 7, "node": 1, "state": "RUNNING"})
    for s in range(1, 501):
        box.log_line(7, line(1, s))
        box.log_line(8, line(1, s))
        if s % 10 == 0:
            box.flush_logs()
    msgs = drain(box)
    assert [m["type"] for m in msgs].count("instance") == 1
    kept = sum(len(b["lines"]) for m in msgs for b in log_batches(m))
    assert box.dropped_lines > 0 and kept + box.dropped_lines == 1000


def test_a_batch_is_sent_at_200_lines() -> None:
    box = Outbox()
    for s in range(1, 451):
        box.log_line(7, line(1, s))
    assert [len(m["lines"]) for m in box.tail] == [200, 200]
    box.flush_logs()
    assert [len(m["lines"]) for m in drain(box)] == [200, 200, 50]


def test_frames_are_numbered_from_1_and_replies_are_not() -> None:
    box = Outbox()
    box.log_line(7, line(1, 1))
    box.instance({"type": "instance", "job": 7, "node": 1, "state": "ENDED"})
    box.reply({"type": "reply", "ref": "r", "ok": True})
    assert [m.get("o") for m in drain(box)] == [None, 1, 2]


def test_after_a_reconnection_everything_above_the_controllers_ack_is_sent_again_in_order() -> None:
    box = Outbox(segment_bytes=2048)  # many segments: the resend reads several files back
    for s in range(1, 2001):
        box.log_line(7, line(1, s))
        if s % 50 == 0:
            box.flush_logs()
    sent = drain(box)
    assert [m["o"] for m in sent] == list(range(1, 41))
    box.ack(10)  # the controller processed 1-10 before the link died
    box.rewind(10)
    again = drain(box)
    assert [m["o"] for m in again] == list(range(11, 41))
    assert [ln["seq"] for m in again for ln in m["lines"]] == list(range(501, 2001))


def test_acked_segments_are_deleted_from_disk(tmp_path) -> None:
    box = Outbox(journal_dir=tmp_path, segment_bytes=1024)
    for s in range(1, 301):
        box.log_line(7, line(1, s))
        box.flush_logs()
    drain(box)
    assert len(list(tmp_path.glob("seg-*.jsonl"))) > 5
    box.ack(300)
    assert list(tmp_path.glob("seg-*.jsonl")) == []
    assert box.pending() == 0


def test_unsent_frames_far_beyond_the_memory_tail_come_back_from_disk() -> None:
    box = Outbox()
    for s in range(1, 5001):  # 5000 frames while disconnected, memory keeps the last 1000
        box.log_line(7, line(1, s))
        box.flush_logs()
    assert len(box.tail) == 1000
    assert [ln["seq"] for m in drain(box) for ln in m["lines"]] == list(range(1, 5001))


def test_a_restarted_daemon_resends_its_journal_and_keeps_numbering(tmp_path) -> None:
    first = Outbox(journal_dir=tmp_path)
    for s in range(1, 4):
        first.log_line(7, line(1, s))
        first.flush_logs()
    first.close()
    second = Outbox(journal_dir=tmp_path)
    second.instance({"type": "instance", "job": 7, "node": 1, "state": "KILLED"})
    assert [m["o"] for m in drain(second)] == [1, 2, 3, 4]


def test_the_oldest_log_batches_are_dropped_beyond_the_bound_but_never_instance_states() -> None:
    box = Outbox(max_bytes=20_000, segment_bytes=4_000)
    box.instance({"type": "instance", "job": 7, "node": 1, "state": "RUNNING"})
    for s in range(1, 1001):
        box.log_line(7, line(1, s))
        if s % 10 == 0:
            box.flush_logs()
    msgs = drain(box)
    assert [m["type"] for m in msgs].count("instance") == 1
    seqs = [ln["seq"] for m in msgs if m["type"] == "log" for ln in m["lines"]]
    assert seqs[-1] == 1000 and seqs == list(range(seqs[0], 1001))  # only the oldest went
    assert box.dropped_lines == seqs[0] - 1 > 0
    assert box.journal.size <= 20_000


def test_a_failed_send_is_put_back_in_front() -> None:
    box = Outbox()
    box.log_line(1, line(1, 1))
    box.flush_logs()
    box.instance({"type": "instance", "job": 1, "node": 1, "state": "ENDED"})
    first = box.pop()
    box.push_front(first)
    assert [m["type"] for m in drain(box)] == ["log", "instance"]


def test_a_batch_is_sent_once_its_text_reaches_1_mb() -> None:
    box = Outbox()
    for s in range(1, 41):  # 40 lines of 100 KB: 10 make a megabyte
        box.log_line(7, {**line(1, s), "text": "x" * 100_000})
    box.flush_logs()
    assert [len(m["lines"]) for m in drain(box)] == [11, 11, 11, 7]


def test_last_held_is_the_journals_newest_frame_and_0_once_all_are_acked(tmp_path) -> None:
    box = Outbox(journal_dir=tmp_path)
    assert box.last_held() == 0
    box.log_line(7, line(1, 1))
    box.instance({"type": "instance", "job": 7, "node": 1, "state": "ENDED"})
    drain(box)
    assert box.last_held() == 2  # sent, not acked: a new connection resends up to here
    box.ack(1)
    assert box.last_held() == 2
    box.ack(2)
    assert box.last_held() == 0  # nothing left to replay
    box.log_line(7, line(1, 2))
    box.flush_logs()
    assert box.last_held() == 3
