"""accounts/hashers.py: the site's password hash is Argon2id at 19 MiB (the tests' settings use
MD5 for speed, so these tests put the site's list back)."""
import pytest
from django.contrib.auth.hashers import make_password
from rest_framework.test import APIClient

from accounts.models import User
from splaylab import settings as site_settings

pytestmark = pytest.mark.django_db


@pytest.fixture
def site_hashers(settings) -> None:
    settings.PASSWORD_HASHERS = site_settings.PASSWORD_HASHERS


def test_a_new_password_is_argon2id_at_19_mib(site_hashers) -> None:
    encoded = make_password("correct horse battery")
    assert encoded.startswith("argon2$argon2id$v=19$m=19456,t=2,p=1$")


def test_an_older_pbkdf2_hash_still_signs_in_and_is_upgraded(site_hashers, settings) -> None:
    from django.contrib.auth.hashers import PBKDF2PasswordHasher

    old = PBKDF2PasswordHasher()
    User.objects.create(username="old-timer", password=old.encode("pw-of-2025", old.salt()))
    client = APIClient(enforce_csrf_checks=False)
    res = client.post("/api/auth/login/", {"username": "old-timer", "password": "pw-of-2025"}, format="json")
    assert res.status_code == 200, res.content
    assert User.objects.get(username="old-timer").password.startswith("argon2$argon2id$v=19$m=19456,t=2,p=1$")
    res = APIClient().post("/api/auth/login/", {"username": "old-timer", "password": "wrong"}, format="json")
    assert res.status_code != 200
