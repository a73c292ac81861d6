"""POST /api/jobs/"""
import hashlib

import pytest

from jobs.models import Job

URL = "/api/jobs/"
VALID = {"code": "print('hi')", "nodes": 3, "duration": 30}


def test_anonymous_gets_401(anon_client, db) -> None:
    assert anon_client.post(URL, VALID, format="json").status_code == 401


def test_returns_201_with_the_job(student_client, student, monkeypatch) -> None:
    monkeypatch.setattr("jobs.tasks.job_schedule.delay", lambda job_id: None)
    res = student_client.post(URL, {**VALID, "name": "ring"}, format="json")
    assert res.status_code == 201
    body = res.json()
    assert body | {"id": 0, "created_at": ""} == {
        "id": 0, "name": "ring", "owner": "student", "state": "QUEUED", "reason": "",
        "error_line": None, "nodes": 3, "duration": 30, "filename": "app.lua",
        "code": "print('hi')", "code_version": hashlib.sha256(b"print('hi')").hexdigest()[:8],
        "network": "lan", "churn": None, "mode": "live", "seed": None, "progress": {}, "trace": None, "harness_of": "",
        "created_at": "", "started_at": None, "ended_at": None, "instances": []}
    assert Job.objects.get(id=body["id"]).owner == student


def test_schedule_is_enqueued_on_commit(student_client, monkeypatch,
                                        django_capture_on_commit_callbacks) -> None:
    queued: list[int] = []
    monkeypatch.setattr("jobs.tasks.job_schedule.delay", queued.append)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        res = student_client.post(URL, VALID, format="json")
    assert queued == []  # nothing before commit
    for callback in callbacks:
        callback()
    assert queued == [res.json()["id"]]


@pytest.mark.parametrize("field,value", [
    ("nodes", 0), ("nodes", 1001), ("duration", 0), ("duration", 3601), ("code", ""),
    ("filename", "../etc/passwd"),
])
def test_rejects_out_of_range_values(student_client, field, value) -> None:
    res = student_client.post(URL, {**VALID, field: value}, format="json")
    assert res.status_code == 400
    assert field in res.json()
    assert Job.objects.count() == 0


def test_accepts_the_limits(student_client, monkeypatch) -> None:
    monkeypatch.setattr("jobs.tasks.job_schedule.delay", lambda job_id: None)
    for nodes, duration in [(1, 1), (1000, 3600)]:
        res = student_client.post(URL, {**VALID, "nodes": nodes, "duration": duration}, format="json")
        assert res.status_code == 201


def test_rejects_code_over_256_kb(student_client) -> None:
    res = student_client.post(URL, {**VALID, "code": "-" * (256 * 1024 + 1)}, format="json")
    assert res.status_code == 400
    assert Job.objects.count() == 0


def _with_descriptor(*lines: str, body: str = "print('hi')\n") -> str:
    return ("--[[\nBEGIN SPLAY RESOURCES RESERVATION\n" + "\n".join(lines)
            + "\nEND SPLAY RESOURCES RESERVATION\n]]\n" + body)


def test_descriptor_gives_the_nodes_and_bounds_the_duration(student_client, monkeypatch) -> None:
    monkeypatch.setattr("jobs.tasks.job_schedule.delay", lambda job_id: None)
    code = _with_descriptor("nb_splayds 7", "max_time 20", "list_type random", "list_size 3")
    res = student_client.post(URL, {"code": code}, format="json")
    assert res.status_code == 201, res.json()
    assert (res.json()["nodes"], res.json()["duration"]) == (7, 20)
    job = Job.objects.get(id=res.json()["id"])
    assert job.descriptor == {"nb_splayds": 7, "max_time": 20, "list_type": "random", "list_size": 3}
    # The request's nodes win; its duration is bounded by max_time.
    res = student_client.post(URL, {"code": code, "nodes": 2, "duration": 60}, format="json")
    assert (res.json()["nodes"], res.json()["duration"]) == (2, 20)
    res = student_client.post(URL, {"code": code, "duration": 5}, format="json")
    assert (res.json()["nodes"], res.json()["duration"]) == (7, 5)


def test_a_descriptor_may_ask_for_more_nodes_than_a_live_job_holds_when_simulated(student_client, monkeypatch) -> None:
    monkeypatch.setattr("jobs.tasks.job_schedule.delay", lambda job_id: None)
    monkeypatch.setattr("jobs.tasks.simulation_run.delay", lambda job_id: None)
    code = _with_descriptor("nb_splayds 2000", "list_size 1")
    res = student_client.post(URL, {"code": code}, format="json")
    assert res.status_code == 400
    assert res.json() == {"nodes": ["nodes must be between 1 and 1,000 (up to 10,000 simulated)"]}
    res = student_client.post(URL, {"code": code, "mode": "sim"}, format="json")
    assert res.status_code == 201, res.json()
    assert (res.json()["nodes"], res.json()["mode"]) == (2000, "sim")


def test_without_descriptor_nodes_are_required_and_duration_defaults_to_30(
        student_client, monkeypatch) -> None:
    monkeypatch.setattr("jobs.tasks.job_schedule.delay", lambda job_id: None)
    res = student_client.post(URL, {"code": "print(1)"}, format="json")
    assert res.status_code == 400
    assert res.json() == {"nodes": ["give the number of nodes, or nb_splayds in the code's "
                                    "resource descriptor"]}
    res = student_client.post(URL, {"code": "print(1)", "nodes": 2}, format="json")
    assert (res.status_code, res.json()["duration"]) == (201, 30)
    assert Job.objects.get(id=res.json()["id"]).descriptor == {}


def test_bad_descriptor_is_a_400_naming_line_and_key(student_client) -> None:
    code = _with_descriptor("nb_splayds 3", "nb_splayd 4", "list_type ring")
    res = student_client.post(URL, {"code": code, "filename": "ring.lua"}, format="json")
    assert res.status_code == 400
    assert res.json() == {"code": [
        "ring.lua:4: descriptor: unknown key 'nb_splayd' (did you mean 'nb_splayds'?)",
        "ring.lua:5: descriptor: 'list_type': expected one of head, random, got 'ring'"]}
    assert Job.objects.count() == 0


def test_stores_the_network_choice_and_shows_its_label(student_client, monkeypatch) -> None:
    monkeypatch.setattr("jobs.tasks.job_schedule.delay", lambda job_id: None)
    network = {"net": "transit-stub:2:4", "loss": "1%", "bandwidth": "10mbit", "partitions": ["5s+5s:0.5"]}
    res = student_client.post(URL, {**VALID, "network": network}, format="json")
    assert res.status_code == 201
    assert res.json()["network"] == "transit-stub:2:4, loss 1%, 10mbit, partition 5s+5s:0.5"
    assert Job.objects.get().network == {**network, "mtu": 1500}


def test_a_plain_lan_stores_nothing(student_client, monkeypatch) -> None:
    monkeypatch.setattr("jobs.tasks.job_schedule.delay", lambda job_id: None)
    res = student_client.post(URL, {**VALID, "network": {"net": "lan"}}, format="json")
    assert res.status_code == 201
    assert Job.objects.get().network == {}


def test_the_descriptor_chooses_a_network_that_submit_options_replace_key_by_key(student_client, monkeypatch) -> None:
    monkeypatch.setattr("jobs.tasks.job_schedule.delay", lambda job_id: None)
    code = ("--[[\nBEGIN SPLAY RESOURCES RESERVATION\nnetwork_model transit-stub\nnetwork_loss 2%\n"
            "network_send_speed 125000\nEND SPLAY RESOURCES RESERVATION\n]]\nprint('hi')")
    res = student_client.post(URL, {**VALID, "code": code}, format="json")
    assert res.status_code == 201
    assert res.json()["network"] == "transit-stub, loss 2%, 125000B/s"
    res = student_client.post(URL, {**VALID, "code": code, "network": {"net": "king"}}, format="json")
    assert res.json()["network"] == "king, loss 2%, 125000B/s"


@pytest.mark.parametrize("network,message", [
    ({"net": "const:50"}, "bad delay '50': give a number and a unit, e.g. 50ms, 1.5s, 200us"),
    ({"net": "warp"}, "unknown network model 'warp': choose one of lan, const, jitter, transit-stub, "
                      "king, matrix, trace"),
    ({"net": "matrix:m.csv", "file_text": "0,10\n20,0\n"},
     "m.csv: asymmetric: row 1, column 2 is 10 ms but row 2, column 1 is 20 ms (pass --asymmetric "
     "if that is intended)"),
    ({"net": "king", "colour": "red"}, "unknown network option(s): colour"),
    ({"loss": "2"}, "bad loss '2': must be at least 0 and less than 1 (100%)"),
])
def test_a_bad_network_is_a_400_naming_the_problem(student_client, network, message) -> None:
    res = student_client.post(URL, {**VALID, "network": network}, format="json")
    assert res.status_code == 400
    assert res.json() == {"network": [message]}
    assert Job.objects.count() == 0


def test_the_message_trace_is_asked_by_the_request_or_the_descriptor(student_client, monkeypatch) -> None:
    monkeypatch.setattr("jobs.tasks.job_schedule.delay", lambda job_id: None)
    traced = _with_descriptor("trace {\"max_events\": 500}")
    for body, trace in (({}, None), ({"trace": True}, {"max_events": 20000}),
                        ({"trace": {"max_events": 7}}, {"max_events": 7}),
                        ({"code": traced}, {"max_events": 500}),
                        ({"code": traced, "trace": False}, None),  # the request wins
                        ({"code": traced, "trace": True}, {"max_events": 20000})):
        res = student_client.post(URL, {**VALID, **body}, format="json")
        assert res.status_code == 201, res.json()
        assert res.json()["trace"] == trace
        assert Job.objects.get(id=res.json()["id"]).trace == trace


@pytest.mark.parametrize("trace,message", [
    ({"max_events": 0}, "max_events: expected an integer between 1 and 1,000,000, got 0"),
    ({"max_events": 10**7}, "max_events: expected an integer between 1 and 1,000,000, got 10000000"),
    ({"events": 5}, "unknown option 'events' (known: max_events)"),
    ("yes", 'expected true, false or {"max_events": N}, got "yes"'),
])
def test_a_bad_trace_option_is_a_400_naming_the_problem(student_client, trace, message) -> None:
    res = student_client.post(URL, {**VALID, "trace": trace}, format="json")
    assert res.status_code == 400
    assert res.json() == {"trace": [message]}
    assert Job.objects.count() == 0
