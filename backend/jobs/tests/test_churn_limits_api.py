"""A 20-byte churn text asking for a million nodes is refused at once on every path of the
service (job creation, the editor's preview and trace tools, the library), naming the line and
the limit (issue 20; the limits are sandbox/churn/limits.py's)."""
import time

import pytest

BAD = "at 0s join 999999"
MESSAGE = "line 1: join of 999,999 nodes: a scenario holds at most 10,000 nodes"


@pytest.mark.django_db
def test_job_creation_refuses_it_naming_line_and_limit(student_client) -> None:
    start = time.process_time()
    res = student_client.post("/api/jobs/", {"code": "print(1)\n", "churn": BAD}, format="json")
    assert time.process_time() - start < 0.5
    assert (res.status_code, res.json()) == (400, {"churn": [MESSAGE]})


@pytest.mark.django_db
def test_preview_and_trace_tools_refuse_it(student_client, teacher_client) -> None:
    res = student_client.post("/api/scenarios/preview/", {"text": BAD}, format="json")
    assert res.status_code == 200
    assert res.json()["errors"] == [{"line": 1, "column": 0, "message": MESSAGE.removeprefix("line 1: ")}]
    res = student_client.post("/api/scenarios/trace/", {"text": BAD}, format="json")
    assert res.json()["errors"][0]["message"] == MESSAGE.removeprefix("line 1: ")


@pytest.mark.django_db
def test_the_trace_tools_refuse_an_amplitude_past_the_node_limit(student_client) -> None:
    res = student_client.post("/api/scenarios/trace/", {"text": "at 0s join 200", "amplitude": 100}, format="json")
    assert res.status_code == 400
    assert res.json()["detail"] == "amplitude 100 makes about 20,000 nodes of 200: a scenario holds at most 10,000"
