"""Bad launches from the LMS, each refused with a message that says why, and nothing created:
no account, no membership, no LMS identity, no binding, no used nonce."""
from __future__ import annotations

import time

import jwt
import pytest
from django.test import Client

from accounts.models import User
from courses.models import Membership
from lti.models import Context, LmsUser, UsedNonce

from .conftest import launch, login_then_auth
from .platform import LaunchSpec, rsa_pem


def _counts() -> tuple[int, ...]:
    return (User.objects.count(), Membership.objects.count(), LmsUser.objects.count(), Context.objects.count(),
            UsedNonce.objects.count())


def _refused(answer, words: str) -> None:  # type: ignore[no-untyped-def]
    assert answer.status_code == 403, answer.content
    assert words in answer.content.decode().replace("&#x27;", "'")


def _resigned(lms, form: dict[str, str], private_pem: str | None = None, **changes: object) -> dict[str, str]:
    """The launch form with its id_token's claims changed, signed again under the LMS's kid."""
    claims = jwt.decode(form["id_token"], options={"verify_signature": False})
    claims.update(changes)
    return {**form, "id_token": lms.sign(claims, private_pem)}


@pytest.fixture
def before(linked) -> tuple[int, ...]:
    return _counts()


def test_an_expired_id_token(linked, before) -> None:
    _refused(launch(Client(), linked.lms, LaunchSpec("u-stud", id_token_expiration=-60)),
             "the id_token has expired")
    assert _counts() == before


def test_a_replayed_id_token(linked) -> None:
    client = Client()
    form = login_then_auth(client, linked.lms, LaunchSpec("u-stud"))
    assert client.post("/lti/launch/", form).status_code == 302
    after_first = _counts()
    _refused(client.post("/lti/launch/", form), "this id_token was already used (a replayed launch)")
    _refused(Client(cookies=client.cookies).post("/lti/launch/", form), "already used")
    assert _counts() == after_first


def test_a_wrong_audience(linked, before) -> None:
    client = Client()
    form = _resigned(linked.lms, login_then_auth(client, linked.lms, LaunchSpec("u-stud")),
                     aud="another-tool", azp="another-tool")
    _refused(client.post("/lti/launch/", form),
             f"no LMS is registered with issuer '{linked.lms.issuer}' and client id 'another-tool'")
    assert _counts() == before


def test_a_wrong_nonce(linked, before) -> None:
    client = Client()
    form = login_then_auth(client, linked.lms, LaunchSpec("u-stud"), nonce="not-ours")
    _refused(client.post("/lti/launch/", form), "the id_token's nonce is not the one SplayLab issued")
    assert _counts() == before


def test_an_unknown_deployment(linked, before) -> None:
    linked.lms.registration.set_deployment_id("dep-unregistered")
    _refused(launch(Client(), linked.lms, LaunchSpec("u-stud")),
             "deployment 'dep-unregistered' is not registered for this LMS")
    assert _counts() == before


def test_a_signature_that_does_not_verify(linked, before) -> None:
    client = Client()
    forger, _ = rsa_pem()
    form = _resigned(linked.lms, login_then_auth(client, linked.lms, LaunchSpec("u-stud")), forger,
                     sub="u-teach", exp=int(time.time()) + 300)
    _refused(client.post("/lti/launch/", form), "the id_token's signature does not verify against the LMS's keys")
    assert _counts() == before


def test_a_launch_from_an_unregistered_lms_is_refused_at_login(linked) -> None:
    answer = Client().get("/lti/login/", {"iss": "https://lms.elsewhere", "client_id": "x", "login_hint": "u",
                                          "target_link_uri": "http://testserver/lti/launch/"})
    assert answer.status_code == 400
    assert "no LMS is registered with issuer 'https://lms.elsewhere'" in answer.content.decode().replace("&#x27;", "'")


def test_a_role_that_opens_no_course(linked, before) -> None:
    linked.lms.members["u-stud"].roles = ["http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor"]
    _refused(launch(Client(), linked.lms, LaunchSpec("u-stud")), "opens no SplayLab course")
    assert _counts() == before
