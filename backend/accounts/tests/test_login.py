"""POST /api/auth/login/ (session, CSRF enforced) and POST /api/auth/logout/"""
from rest_framework.test import APIClient

from accounts.tests.factories import PASSWORD


def _csrf_client() -> tuple[APIClient, str]:
    client = APIClient(enforce_csrf_checks=True)
    client.get("/api/auth/me/")  # 204 (no one signed in), and plants the csrftoken cookie
    return client, client.cookies["csrftoken"].value


def test_login_with_csrf_token_opens_a_session(student) -> None:
    client, token = _csrf_client()
    res = client.post("/api/auth/login/", {"username": "student", "password": PASSWORD},
                      format="json", HTTP_X_CSRFTOKEN=token)
    assert res.status_code == 200
    assert res.json() == {"id": student.id, "username": "student", "role": "student", "manages_daemons": False,
                          "operator": False}
    assert client.get("/api/auth/me/").json()["username"] == "student"


def test_login_without_csrf_token_is_refused(student) -> None:
    client, _ = _csrf_client()
    res = client.post("/api/auth/login/", {"username": "student", "password": PASSWORD}, format="json")
    assert res.status_code == 403
    assert "CSRF" in res.json()["detail"]


def test_wrong_password_is_400(student) -> None:
    client, token = _csrf_client()
    res = client.post("/api/auth/login/", {"username": "student", "password": "nope"},
                      format="json", HTTP_X_CSRFTOKEN=token)
    assert res.status_code == 400
    assert client.get("/api/auth/me/").status_code == 204  # no one signed in


def test_logout_ends_the_session(student) -> None:
    client = APIClient()
    client.login(username="student", password=PASSWORD)
    assert client.post("/api/auth/logout/").status_code == 204
    assert client.get("/api/auth/me/").status_code == 204  # no one signed in
