"""lib.schema: /api/schema/ documents the answers the API really gives, errors included
(tests/security/test_api_fuzz.py checks every operation against it with generated requests)."""
import pytest
import yaml
from rest_framework.test import APIClient


@pytest.fixture(scope="module")
def schema() -> dict:
    res = APIClient().get("/api/schema/")
    assert res.status_code == 200
    return yaml.safe_load(res.content)


def _responses(schema: dict, method: str, path: str) -> dict:
    return schema["paths"][path][method]["responses"]


def test_errors_are_documented_where_they_can_happen(schema: dict) -> None:
    assert sorted(_responses(schema, "put", "/api/workspaces/{workspace_id}/")) == [
        "200", "400", "401", "403", "404", "409", "413", "415"]
    assert sorted(_responses(schema, "get", "/api/jobs/")) == ["200", "401"]
    # login: no authentication runs (no 401), CSRF is checked (403), attempts are counted (429)
    assert sorted(_responses(schema, "post", "/api/auth/login/")) == ["200", "400", "403", "409", "413", "415", "429"]
    error = _responses(schema, "get", "/api/jobs/{job_id}/")["404"]["content"]["application/json"]["schema"]
    assert error == {"$ref": "#/components/schemas/ErrorDetail"}
    assert schema["components"]["schemas"]["ErrorDetail"]["required"] == ["detail"]


def test_scenario_creation_is_documented_as_it_answers(schema: dict, teacher_client: APIClient) -> None:
    from courses.tests.factories import course_with
    from accounts.models import User

    course_with(instructors=(User.objects.get(username="teacher"),))
    assert "201" in _responses(schema, "post", "/api/scenarios/")
    assert "200" not in _responses(schema, "post", "/api/scenarios/")
    res = teacher_client.post("/api/scenarios/", {"name": "flat", "text": "at 0s join 2\n"}, format="json")
    assert res.status_code == 201


def test_the_trace_tools_document_their_own_bodies(schema: dict) -> None:
    trace = schema["paths"]["/api/scenarios/trace/"]["post"]
    body = trace["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert set(schema["components"]["schemas"][body]["properties"]) == {
        "text", "seed", "start", "end", "speedup", "amplitude"}
    out = trace["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert {"trace", "nodes", "dropped_network", "errors"} <= set(schema["components"]["schemas"][out]["properties"])


@pytest.mark.django_db
def test_api_paths_that_match_nothing_answer_json(student_client: APIClient) -> None:
    for path in ("/api/courses/null,null/", "/api/nothing/"):
        res = student_client.get(path)
        assert res.status_code == 404
        assert res["Content-Type"] == "application/json"
        assert res.json() == {"detail": f"no API path {path}"}
