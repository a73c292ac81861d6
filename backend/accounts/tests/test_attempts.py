"""Failed sign-ins are counted per username and address (lib.attempts): past the limit both
sign-in endpoints answer 429 with Retry-After, the right password included; other users and
other addresses are not slowed (a class behind one NAT)."""
import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from accounts.tests.factories import PASSWORD

LIMITS = {"SPLAYLAB_LOGIN_FAILURES_PER_USER": 3, "SPLAYLAB_LOGIN_FAILURES_PER_IP": 6, "SPLAYLAB_ATTEMPT_WINDOW": 60}


def _token(client: APIClient, username: str, password: str, ip: str = "10.0.0.1"):
    return client.post("/api/auth/token/", {"username": username, "password": password}, format="json",
                       REMOTE_ADDR=ip)


@override_settings(**LIMITS)
def test_the_user_is_locked_out_after_the_limit_even_with_the_right_password(anon_client, student) -> None:
    assert [_token(anon_client, "student", "wrong").status_code for _ in range(3)] == [400, 400, 400]
    res = _token(anon_client, "student", PASSWORD)
    assert res.status_code == 429
    wait = int(res["Retry-After"])
    assert 1 <= wait <= 60
    assert res.json() == {"detail": f"too many failed sign-ins for this user from your address (3 in 60 s): "
                                    f"try again in {wait} s"}


@override_settings(**LIMITS)
def test_the_login_endpoint_shares_the_count(anon_client, student) -> None:
    for _ in range(3):
        _token(anon_client, "student", "wrong")
    res = anon_client.post("/api/auth/login/", {"username": "student", "password": PASSWORD}, format="json",
                           REMOTE_ADDR="10.0.0.1")
    assert res.status_code == 429


@override_settings(**LIMITS)
def test_other_users_and_addresses_are_not_slowed(anon_client, student, other_student) -> None:
    for _ in range(3):
        _token(anon_client, "student", "wrong")
    assert _token(anon_client, "alice", PASSWORD).status_code == 200  # same address, another user
    assert _token(anon_client, "student", PASSWORD, ip="10.0.0.2").status_code == 200  # another address


@override_settings(**LIMITS)
def test_successes_never_count(anon_client, student) -> None:
    assert all(_token(anon_client, "student", PASSWORD).status_code == 200 for _ in range(20))


@override_settings(**LIMITS)
def test_an_address_guessing_many_usernames_is_stopped(anon_client, student) -> None:
    assert [_token(anon_client, f"user{i}", "x").status_code for i in range(6)] == [400] * 6
    res = _token(anon_client, "student", PASSWORD)
    assert res.status_code == 429
    assert "failed sign-ins from your address" in res.json()["detail"]


@override_settings(**LIMITS)
def test_the_lockout_ends_with_its_window(anon_client, student, monkeypatch: pytest.MonkeyPatch) -> None:
    import time as time_module
    now = time_module.time()
    monkeypatch.setattr("lib.attempts.time.time", lambda: now)
    for _ in range(3):
        _token(anon_client, "student", "wrong")
    assert _token(anon_client, "student", PASSWORD).status_code == 429
    monkeypatch.setattr("lib.attempts.time.time", lambda: now + 61)
    assert _token(anon_client, "student", PASSWORD).status_code == 200
