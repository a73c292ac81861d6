"""GET /api/auth/me/"""
from courses.tests.factories import course_with


def test_returns_the_user_and_role(teacher_client, teacher) -> None:
    res = teacher_client.get("/api/auth/me/")
    # An instructor account instructing no course has no daemon to manage yet.
    assert res.json() == {"id": teacher.id, "username": "teacher", "role": "instructor", "manages_daemons": False,
                          "operator": False}
    assert "csrftoken" in res.cookies
    course_with(instructors=(teacher,))
    assert teacher_client.get("/api/auth/me/").json()["manages_daemons"] is True


def test_anonymous_gets_no_one_and_a_csrf_cookie(anon_client, db) -> None:
    """No one signed in is a normal answer, not a 401 (no console error on /login, no
    django.request warning)."""
    res = anon_client.get("/api/auth/me/")
    assert res.status_code == 204
    assert res.content == b""
    assert res.cookies["csrftoken"].value


def test_a_bad_token_is_still_a_401(anon_client, db) -> None:
    res = anon_client.get("/api/auth/me/", HTTP_AUTHORIZATION="Token not-a-token")
    assert res.status_code == 401


def test_an_anonymous_visit_logs_no_warning(anon_client, db, caplog) -> None:
    with caplog.at_level("WARNING", logger="django.request"):
        anon_client.get("/api/auth/me/")
    assert [r.getMessage() for r in caplog.records if r.name == "django.request"] == []
