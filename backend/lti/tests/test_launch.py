"""Launches from a real LTI 1.3 platform (lti1p3platform, tests/platform.py) through SplayLab's
login and launch endpoints: accounts, roles and the course binding from the claims."""
from __future__ import annotations

from django.test import Client

from accounts.models import User
from courses.models import Membership
from grading.tests.factories import assignment_make
from lti.models import Context, LmsUser

from .conftest import launch, login_then_auth
from .platform import TA, LaunchSpec, Member


def test_a_student_launch_makes_the_account_and_the_membership_and_opens_the_assignment(linked) -> None:
    assignment = assignment_make(linked.course, "chord")
    client = Client()
    answer = launch(client, linked.lms, LaunchSpec("u-stud", custom={"assignment": "chord"}))
    assert answer.status_code == 302 and answer["Location"] == f"/courses/{linked.course.id}/assignments/chord"
    link = LmsUser.objects.select_related("user").get(platform=linked.platform, sub="u-stud")
    user = link.user
    assert (user.email, user.first_name, user.has_usable_password()) == ("sam@lms.example", "Sam Student", False)
    assert user.username.startswith("sam-")
    assert Membership.objects.get(course=linked.course, user=user).role == "student"
    context = Context.objects.get(platform=linked.platform)
    assert (context.context_id, context.course_id, context.title) == ("ctx-1", linked.course.id,
                                                                       "Distributed Systems 2026")
    assert context.lineitems_url == f"{linked.lms.url}/lineitems"
    assert context.memberships_url == f"{linked.lms.url}/memberships"
    # Signed in: the API answers as the LMS's student, in the bound course.
    assert client.get(f"/api/courses/{linked.course.id}/assignments/").json()[0]["slug"] == assignment.slug


def test_a_second_launch_is_the_same_account_and_roles_follow_the_lms(linked, monkeypatch) -> None:
    monkeypatch.setattr("lti.views.roster_sync.delay", lambda context_id: None)
    launch(Client(), linked.lms, LaunchSpec("u-stud"))
    linked.lms.members["u-stud"] = Member("u-stud", TA, "Sam Student", "sam@lms.example")
    answer = launch(Client(), linked.lms, LaunchSpec("u-stud"))
    assert answer.status_code == 302 and answer["Location"] == f"/courses/{linked.course.id}"
    assert LmsUser.objects.filter(sub="u-stud").count() == 1
    user = LmsUser.objects.get(sub="u-stud").user
    assert Membership.objects.get(course=linked.course, user=user).role == "ta"


def test_an_instructor_launch_is_an_instructor_of_the_course(linked, monkeypatch) -> None:
    synced: list[int] = []
    monkeypatch.setattr("lti.views.roster_sync.delay", synced.append)
    answer = launch(Client(), linked.lms, LaunchSpec("u-teach"))
    assert answer.status_code == 302
    user = LmsUser.objects.get(sub="u-teach").user
    assert user.role == User.Role.INSTRUCTOR
    assert Membership.objects.get(course=linked.course, user=user).role == "instructor"
    assert synced == [Context.objects.get().id]  # the roster follows the LMS on an instructor's launch


def test_an_unpublished_assignment_opens_the_course_page_for_a_student(linked) -> None:
    assignment_make(linked.course, "draft", published=False)
    answer = launch(Client(), linked.lms, LaunchSpec("u-stud", custom={"assignment": "draft"}))
    assert answer["Location"] == f"/courses/{linked.course.id}"


def test_over_https_the_launch_rides_on_cookies_an_lms_frame_sends(linked) -> None:
    """Under https pylti1p3 keys the launch's state by a session cookie of its own, set at login
    SameSite=None; Secure (an LMS's iframe is a third-party context); without it: refused."""
    client = Client()
    form = login_then_auth(client, linked.lms, LaunchSpec("u-stud"), secure=True)
    session_cookie = client.cookies["lti1p3-session-id"]
    assert session_cookie["samesite"] == "None" and session_cookie["secure"]
    answer = client.post("/lti/launch/", form, secure=True)
    assert answer.status_code == 302 and answer["Location"] == f"/courses/{linked.course.id}"
    form = login_then_auth(client, linked.lms, LaunchSpec("u-stud"), secure=True)
    stranger = Client()  # the same form from a browser that never logged in
    refusal = stranger.post("/lti/launch/", form, secure=True)
    assert refusal.status_code == 403 and "the launch's state is not one SplayLab issued" in refusal.content.decode().replace("&#x27;", "'")
