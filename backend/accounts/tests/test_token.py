"""GET/POST /api/auth/token/ and `manage.py user_token`"""
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.tests.factories import PASSWORD


def test_get_returns_a_stable_token_that_authenticates(student_client, student) -> None:
    token = student_client.get("/api/auth/token/").json()["token"]
    assert student_client.get("/api/auth/token/").json()["token"] == token
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/auth/me/").json()["username"] == "student"


def test_post_with_credentials_returns_the_token(anon_client, student) -> None:
    res = anon_client.post("/api/auth/token/", {"username": "student", "password": PASSWORD}, format="json")
    assert res.status_code == 200
    assert res.json() == {"token": Token.objects.get(user=student).key}


def test_post_with_a_wrong_password_is_400(anon_client, student) -> None:
    res = anon_client.post("/api/auth/token/", {"username": "student", "password": "x"}, format="json")
    assert res.status_code == 400
    assert not Token.objects.exists()


def test_get_anonymous_is_401(anon_client, db) -> None:
    assert anon_client.get("/api/auth/token/").status_code == 401


def test_user_token_command_prints_the_same_token(student) -> None:
    out = StringIO()
    call_command("user_token", "student", stdout=out)
    assert out.getvalue().strip() == Token.objects.get(user=student).key
    again = StringIO()
    call_command("user_token", "student", stdout=again)
    assert again.getvalue() == out.getvalue()


def test_user_token_command_unknown_user(db) -> None:
    with pytest.raises(CommandError, match="no user named 'ghost'"):
        call_command("user_token", "ghost")
