"""/api/scenarios/: the churn preview and the instructors' scenario library."""
import pytest

from courses.tests.factories import course_with
from scenarios.models import Scenario

SCRIPT = "at 30s join 100\nfrom 1m to 2m leave 50% churn 20%\nat 90s partition 50%\nat 3m stop\n"


def test_preview_gives_population_bins_and_network_events(student_client) -> None:
    body = student_client.post("/api/scenarios/preview/", {"text": SCRIPT}, format="json").json()
    assert body["errors"] == [] and body["kind"] == "script"
    assert body["population"][0] == [30.0, 100] and body["population"][-1][1] == 50
    assert body["duration"] == 180 and body["end"] == 180 and body["bin"] == 5.0
    # churn 20 % of the mean population (100 + 50) / 2: 15 more leaves and joins
    assert sum(b[1] for b in body["bins"]) == 100 + 15 and sum(b[2] for b in body["bins"]) == 50 + 15
    assert body["network"] == [{"t": 90.0, "text": "at 90s partition 50% 50%"}]


def test_preview_reports_every_bad_line(student_client) -> None:
    body = student_client.post("/api/scenarios/preview/", {"text": "at 1s join 2\nat 2 leave\nfrom 5s to 1s keep\n"},
                               format="json").json()
    assert body["errors"] == [
        {"line": 2, "column": 6, "message": "the instant: expected a time unit (s, m, h, d) after 2"},
        {"line": 3, "column": 12, "message": "the period ends (1 s) before it starts (5 s)"}]


def test_preview_reads_traces(student_client) -> None:
    body = student_client.post("/api/scenarios/preview/", {"text": "0 10\n5\n"}, format="json").json()
    assert body["kind"] == "trace" and body["population"] == [[0.0, 1], [5.0, 2], [10.0, 1]]


def test_trace_tools_turn_a_script_into_splays_trace_format(student_client) -> None:
    body = student_client.post("/api/scenarios/trace/", {"text": SCRIPT}, format="json").json()
    assert body["errors"] == [] and body["nodes"] == 115 and body["dropped_network"] == 1  # 100 + 15 churned in
    lines = body["trace"].splitlines()
    assert len(lines) == 115 and lines[0].split()[0] == "30"
    # the trace reads back as the same population
    again = student_client.post("/api/scenarios/preview/", {"text": body["trace"]}, format="json").json()
    assert again["kind"] == "trace" and again["population"][0] == [30.0, 100]
    assert again["population"][-2:] == [[120.0, 50], [180.0, 0]]  # the stop ends the sessions still on


def test_trace_tools_window_speed_up_and_scale(student_client) -> None:
    trace = "0 10\n5\n20 40\n"
    post = lambda **tools: student_client.post("/api/scenarios/trace/", {"text": trace, **tools}, format="json")
    assert post(speedup=2).json()["trace"] == "0 5\n2.5\n10 20\n"
    assert post(start=5, end=30).json()["trace"] == "0 5\n0\n15\n"  # shifted to 0; still on at 30 s
    assert post(amplitude=2).json()["nodes"] == 6 and post(amplitude=0.5, seed=3).json()["nodes"] < 3
    assert post(amplitude=0.5, seed=3).json() == post(amplitude=0.5, seed=3).json()  # the seed fixes the draw


def test_trace_tools_refuse_bad_settings_and_report_bad_text_as_the_preview(student_client) -> None:
    post = lambda **body: student_client.post("/api/scenarios/trace/", body, format="json")
    r = post(text="at 1s join 2", speedup=0)
    assert r.status_code == 400 and r.json() == {"speedup": ["the speed-up factor must be above 0 and at most 1000"]}
    r = post(text="at 1s join 2", amplitude=-1)
    assert r.status_code == 400 and "amplitude" in r.json()
    r = post(text="at 1s join 2", start=10, end=5)
    assert r.status_code == 400 and r.json() == {"detail": "the window must end after it starts"}
    body = post(text="at 2 leave").json()
    assert body["errors"][0]["line"] == 1 and "trace" not in body


def test_instructors_write_the_library_students_read_it(teacher, teacher_client, student_client) -> None:
    course_with(instructors=(teacher,))
    res = teacher_client.post("/api/scenarios/", {"name": "massive failure", "text": SCRIPT}, format="json")
    assert res.status_code == 201
    sid = res.json()["id"]
    assert [s["name"] for s in student_client.get("/api/scenarios/").json()] == ["massive failure"]
    assert student_client.get(f"/api/scenarios/{sid}/").json()["text"] == SCRIPT
    assert student_client.post("/api/scenarios/", {"name": "x", "text": SCRIPT}, format="json").status_code == 403
    assert student_client.delete(f"/api/scenarios/{sid}/").status_code == 403
    res = teacher_client.put(f"/api/scenarios/{sid}/", {"name": "half fails", "text": "at 1s join 3"}, format="json")
    assert res.status_code == 200 and Scenario.objects.get().name == "half fails"
    assert teacher_client.delete(f"/api/scenarios/{sid}/").status_code == 204


def test_a_bad_scenario_or_a_taken_name_is_refused(teacher, teacher_client) -> None:
    course_with(instructors=(teacher,))
    res = teacher_client.post("/api/scenarios/", {"name": "bad", "text": "at 5 join 1"}, format="json")
    assert res.status_code == 400
    assert res.json() == {"text": ["line 1, column 6: the instant: expected a time unit (s, m, h, d) after 5"]}
    teacher_client.post("/api/scenarios/", {"name": "one", "text": "at 1s join 1"}, format="json")
    res = teacher_client.post("/api/scenarios/", {"name": "one", "text": "at 1s join 2"}, format="json")
    assert res.status_code == 400 and res.json() == {"name": ["a scenario named 'one' exists already"]}


@pytest.mark.parametrize("method", ["get", "post"])
def test_anonymous_gets_401(anon_client, db, method) -> None:
    url = "/api/scenarios/preview/" if method == "post" else "/api/scenarios/"
    assert getattr(anon_client, method)(url, {"text": "at 1s join 1"}, format="json").status_code == 401
