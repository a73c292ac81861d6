"""LTI Dynamic Registration: the instructor gives the LMS the course's registration URL; the
LMS opens it with its OpenID configuration; SplayLab registers itself and a launch then works."""
from __future__ import annotations

from django.test import Client

from accounts.models import User
from courses.models import Membership
from courses.tests.factories import client_for, course_make, member_add
from lti.models import Deployment, Platform

from .conftest import launch
from .platform import LaunchSpec


def _registration_url(course, teacher) -> str:  # type: ignore[no-untyped-def]
    tool = client_for(teacher).get(f"/api/courses/{course.id}/lti/platforms/").json()["tool"]
    return tool["dynamic_registration_url"].removeprefix("http://testserver")


def test_the_lms_registers_splaylab_and_its_launches_work(teacher: User, lms) -> None:
    course = course_make("ds")
    member_add(course, teacher, Membership.Role.INSTRUCTOR)
    answer = Client().get(_registration_url(course, teacher), {
        "openid_configuration": f"{lms.url}/.well-known/openid-configuration", "registration_token": "once-123"})
    assert answer.status_code == 200, answer.content
    assert "org.imsglobal.lti.close" in answer.content.decode() and "X-Frame-Options" not in answer.headers
    [sent] = lms.dynamic_registrations
    assert sent["authorization"] == "Bearer once-123"
    assert sent["body"]["jwks_uri"] == "http://testserver/lti/jwks/"
    assert sent["body"]["initiate_login_uri"] == "http://testserver/lti/login/"
    assert sent["body"]["redirect_uris"] == ["http://testserver/lti/launch/"]
    platform = Platform.objects.get()
    assert (platform.course_id, platform.issuer, platform.client_id, platform.name, platform.created_by_id) == (
        course.id, lms.issuer, lms.client_id, "test-lms", teacher.id)
    assert platform.key_set_url == f"{lms.url}/jwks" and platform.auth_login_url == f"{lms.url}/auth"
    assert list(Deployment.objects.values_list("deployment_id", flat=True)) == [lms.deployment_id]
    assert launch(Client(), lms, LaunchSpec("u-stud")).status_code == 302


def test_a_registration_link_that_is_not_ours_or_a_lying_lms_registers_nothing(teacher: User, ta: User, lms) -> None:
    course = course_make("ds")
    member_add(course, teacher, Membership.Role.INSTRUCTOR)
    member_add(course, ta, Membership.Role.TA)
    forged = Client().get("/lti/register/not-a-token/", {"openid_configuration": f"{lms.url}/.well-known/openid-configuration"})
    assert forged.status_code == 400 and "expired or is not SplayLab's" in forged.content.decode().replace("&#x27;", "'")
    assert "dynamic_registration_url" not in client_for(ta).get(f"/api/courses/{course.id}/lti/platforms/").json()["tool"]
    lms.issuer = "https://lms.elsewhere.example"  # a configuration claiming another host's issuer
    lying = Client().get(_registration_url(course, teacher),
                         {"openid_configuration": f"{lms.url}/.well-known/openid-configuration"})
    assert lying.status_code == 400 and "not the host it came from" in lying.content.decode()
    assert not Platform.objects.exists() and lms.dynamic_registrations == []
