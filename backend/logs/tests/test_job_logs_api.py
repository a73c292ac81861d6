"""GET /api/jobs/<id>/logs/"""
import pytest

from courses.tests.factories import course_with
from jobs.tests.factories import job_make
from logs.models import LogLine


@pytest.fixture
def job_with_logs(student):
    job = job_make(student, nodes=2)
    lines = [LogLine.objects.create(job=job, node=1 + i % 2, seq=1 + i // 2, t=1000.0 + i,
                                    level="print", text=f"line {i}") for i in range(6)]
    return job, lines


def test_returns_lines_in_id_order_with_next_after(student_client, job_with_logs) -> None:
    job, lines = job_with_logs
    body = student_client.get(f"/api/jobs/{job.id}/logs/").json()
    assert [ln["id"] for ln in body["lines"]] == [ln.id for ln in lines]
    assert body["lines"][0] == {"id": lines[0].id, "node": 1, "seq": 1, "t": 1000.0,
                                "level": "print", "text": "line 0"}
    assert body["next_after"] == lines[-1].id


def test_after_node_and_limit_filter(student_client, job_with_logs) -> None:
    job, lines = job_with_logs
    body = student_client.get(f"/api/jobs/{job.id}/logs/",
                              {"after": lines[0].id, "node": 1, "limit": 1}).json()
    assert [ln["text"] for ln in body["lines"]] == ["line 2"]
    assert body["next_after"] == lines[2].id


def test_nothing_new_keeps_next_after(student_client, job_with_logs) -> None:
    job, lines = job_with_logs
    body = student_client.get(f"/api/jobs/{job.id}/logs/", {"after": lines[-1].id}).json()
    assert body == {"lines": [], "next_after": lines[-1].id}


def test_limit_above_1000_is_rejected(student_client, job_with_logs) -> None:
    job, _ = job_with_logs
    assert student_client.get(f"/api/jobs/{job.id}/logs/", {"limit": 1001}).status_code == 400


def test_other_student_gets_404_teacher_gets_lines(other_client, teacher, teacher_client, student,
                                                  job_with_logs) -> None:
    course_with(instructors=(teacher,), students=(student,))
    job, lines = job_with_logs
    assert other_client.get(f"/api/jobs/{job.id}/logs/").status_code == 404
    assert len(teacher_client.get(f"/api/jobs/{job.id}/logs/").json()["lines"]) == len(lines)


def test_anonymous_gets_401(anon_client, job_with_logs) -> None:
    job, _ = job_with_logs
    assert anon_client.get(f"/api/jobs/{job.id}/logs/").status_code == 401


def test_level_filter_returns_only_that_level(student_client, student) -> None:
    job = job_make(student, nodes=1)
    for i, level in enumerate(["print", "warning", "info", "warning"]):
        LogLine.objects.create(job=job, node=1, seq=i + 1, t=1.0 + i, level=level, text=f"{level} {i}")
    body = student_client.get(f"/api/jobs/{job.id}/logs/", {"level": "warning"}).json()
    assert [ln["text"] for ln in body["lines"]] == ["warning 1", "warning 3"]
    assert student_client.get(f"/api/jobs/{job.id}/logs/", {"level": "loud"}).status_code == 400
