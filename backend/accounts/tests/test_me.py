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


def test_anonymous_gets_401_and_a_csrf_cookie(anon_client, db) -> None:
    res = anon_client.get("/api/auth/me/")
    assert res.status_code == 401
    assert res.cookies["csrftoken"].value
