"""An instructor registers the course's LMS: fields checked, one registration per (issuer,
client id), the tool's URLs to paste into the LMS, and the JWKS the LMS checks us with."""
from __future__ import annotations

import jwt
from django.test import Client
from jwcrypto.jwk import JWK

from courses.models import Membership
from courses.tests.factories import client_for, course_make, member_add
from lti.keys import tool_key
from lti.models import Deployment, Platform

FIELDS = {"name": "Canvas", "issuer": "https://canvas.instructure.com", "client_id": "10000000000042",
          "deployment_ids": ["7:abc", "8:def"], "auth_login_url": "https://sso.canvaslms.com/api/lti/authorize_redirect",
          "auth_token_url": "https://sso.canvaslms.com/login/oauth2/token",
          "key_set_url": "https://sso.canvaslms.com/api/lti/security/jwks"}


def _course(teacher, ta, student):  # type: ignore[no-untyped-def]
    course = course_make("ds")
    member_add(course, teacher, Membership.Role.INSTRUCTOR)
    member_add(course, ta, Membership.Role.TA)
    member_add(course, student)
    return course


def test_an_instructor_registers_the_lms_and_sees_what_to_paste(teacher, ta, student) -> None:
    course = _course(teacher, ta, student)
    url = f"/api/courses/{course.id}/lti/platforms/"
    answer = client_for(teacher).post(url, FIELDS, format="json")
    assert answer.status_code == 201, answer.json()
    assert answer.json()["deployment_ids"] == ["7:abc", "8:def"] and answer.json()["contexts"] == []
    listing = client_for(ta).get(url).json()
    assert listing["tool"]["login_url"] == "http://testserver/lti/login/"
    assert listing["tool"]["jwks_url"] == "http://testserver/lti/jwks/"
    assert [p["client_id"] for p in listing["platforms"]] == ["10000000000042"]
    platform = Platform.objects.get()
    edited = client_for(teacher).patch(f"{url}{platform.id}/", {"deployment_ids": ["8:def"]}, format="json")
    assert edited.json()["deployment_ids"] == ["8:def"]
    assert list(Deployment.objects.values_list("deployment_id", flat=True)) == ["8:def"]


def test_bad_registrations_are_refused_with_the_field_and_nothing_made(teacher, ta, student) -> None:
    course = _course(teacher, ta, student)
    url = f"/api/courses/{course.id}/lti/platforms/"
    plain = client_for(teacher).post(url, {**FIELDS, "key_set_url": "http://lms.example/jwks"}, format="json")
    assert plain.status_code == 400 and "must be an https URL" in plain.json()["key_set_url"][0]
    none = client_for(teacher).post(url, {**FIELDS, "deployment_ids": []}, format="json")
    assert none.status_code == 400 and "deployment_ids" in none.json()
    assert client_for(ta).post(url, FIELDS, format="json").status_code == 403
    assert client_for(student).get(url).status_code == 403
    assert Platform.objects.count() == 0
    assert client_for(teacher).post(url, FIELDS, format="json").status_code == 201
    other = course_make("os")
    member_add(other, teacher, Membership.Role.INSTRUCTOR)
    twice = client_for(teacher).post(f"/api/courses/{other.id}/lti/platforms/", FIELDS, format="json")
    assert twice.status_code == 409 and "already registered (course 'Distributed Systems')" in twice.json()["detail"]


def test_the_jwks_holds_the_key_our_service_tokens_are_signed_with(db) -> None:
    keys = Client().get("/lti/jwks/").json()["keys"]
    key = tool_key()
    assert [k["kid"] for k in keys] == [key.kid]
    token = jwt.encode({"iss": "splaylab"}, key.private_pem, algorithm="RS256", headers={"kid": key.kid})
    public = JWK(**keys[0]).export_to_pem()
    assert jwt.decode(token, public, algorithms=["RS256"]) == {"iss": "splaylab"}
