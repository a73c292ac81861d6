"""GET /api/auth/me/"""


def test_returns_the_user_and_role(teacher_client, teacher) -> None:
    res = teacher_client.get("/api/auth/me/")
    assert res.json() == {"id": teacher.id, "username": "teacher", "role": "instructor", "manages_daemons": True}
    assert "csrftoken" in res.cookies


def test_anonymous_gets_401_and_a_csrf_cookie(anon_client, db) -> None:
    res = anon_client.get("/api/auth/me/")
    assert res.status_code == 401
    assert res.cookies["csrftoken"].value
