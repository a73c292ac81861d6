"""A course `ds` (instructor teacher) registered with a test LMS (platform.py), and a browser
that goes through the LMS's launch: the LMS's login initiation, SplayLab's OIDC redirect, the
LMS's signed launch form, posted to SplayLab."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

import pytest
from django.test import Client

from accounts.models import User
from courses.models import Course, Membership
from courses.tests.factories import course_make, member_add
from grading.tests.conftest import classroom  # noqa: F401 - a course without an LMS, for contrast
from lti.models import Platform
from lti.services import platform_register

from .platform import INSTRUCTOR, LEARNER, LaunchSpec, Member, TestLms


@dataclass
class Linked:
    course: Course
    teacher: User
    lms: TestLms
    platform: Platform


@pytest.fixture
def lms(db: None) -> Iterator[TestLms]:
    jwks = Client().get("/lti/jwks/").json()
    test_lms = TestLms(tool_base="http://testserver", tool_jwks=jwks)
    test_lms.members["u-teach"] = Member("u-teach", INSTRUCTOR, "Ada Teacher", "ada@lms.example")
    test_lms.members["u-stud"] = Member("u-stud", LEARNER, "Sam Student", "sam@lms.example")
    yield test_lms
    test_lms.close()


@pytest.fixture
def linked(teacher: User, lms: TestLms) -> Linked:
    course = course_make("ds")
    member_add(course, teacher, Membership.Role.INSTRUCTOR)
    platform = platform_register(course=course, by=teacher, **lms.registration_fields())
    return Linked(course, teacher, lms, platform)


def login_then_auth(client: Client, lms: TestLms, spec: LaunchSpec, *, nonce: str | None = None,
                    secure: bool = False) -> dict[str, str]:
    """The browser up to the LMS's launch form: its fields (id_token, state)."""
    url = urlsplit(lms.login_url(spec))
    answer = client.get(url.path, dict(parse_qsl(url.query)), secure=secure)
    assert answer.status_code == 302, answer.content
    query = dict(parse_qsl(urlsplit(answer["Location"]).query))
    assert query["client_id"] == lms.client_id and query["redirect_uri"] == "http://testserver/lti/launch/"
    if nonce is not None:
        query["nonce"] = nonce  # the LMS signs a nonce SplayLab never issued
    return lms.auth(query)


def launch(client: Client, lms: TestLms, spec: LaunchSpec, *, secure: bool = False):  # type: ignore[no-untyped-def]
    return client.post("/lti/launch/", login_then_auth(client, lms, spec, secure=secure), secure=secure)
