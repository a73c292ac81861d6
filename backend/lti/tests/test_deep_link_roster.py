"""Deep linking (an instructor picks assignments in SplayLab, they become LMS activities) and
NRPS roster sync (on demand and on an instructor's launch), against the test LMS."""
from __future__ import annotations

import html
import re

import requests
from django.test import Client

from accounts.models import User
from courses.models import Membership
from courses.tests.factories import client_for
from grading.tests.factories import assignment_make
from lti import tasks
from lti.models import Context, LmsUser

from .conftest import launch
from .platform import LEARNER, TA, LaunchSpec, Member


def test_an_instructor_deep_links_assignments_into_the_lms(linked, monkeypatch) -> None:
    monkeypatch.setattr("lti.views.roster_sync.delay", lambda context_id: None)
    assignment_make(linked.course, "chord")
    assignment_make(linked.course, "cyclon", title="Cyclon", published=False)
    client = Client()
    picker = launch(client, linked.lms, LaunchSpec("u-teach", deep_link=True))
    assert picker.status_code == 200 and "X-Frame-Options" not in picker.headers  # LMSs frame the picker
    page = picker.content.decode()
    assert 'value="chord"' in page and 'value="cyclon"' in page and "not published yet" in page
    launch_id = re.search(r'name="launch_id" value="([^"]+)"', page).group(1)
    answer = client.post("/lti/deep-link/", {"launch_id": launch_id, "assignment": ["chord", "cyclon"]})
    assert answer.status_code == 200
    form = answer.content.decode()
    action = re.search(r'action="([^"]+)"', form).group(1)
    token = re.search(r'name="JWT" value="([^"]+)"', form).group(1)
    assert action == f"{linked.lms.url}/deep-link-return"
    # The LMS checks the answer's signature against our JWKS, then keeps the links.
    assert requests.post(action, data={"JWT": html.unescape(token)}, timeout=10).status_code == 200
    items = {i["custom"]["assignment"]: i for i in linked.lms.deep_link_items}
    assert set(items) == {"chord", "cyclon"}
    assert items["chord"]["type"] == "ltiResourceLink" and items["chord"]["url"] == "http://testserver/lti/launch/"
    assert items["chord"]["lineItem"]["scoreMaximum"] == 100 and items["chord"]["lineItem"]["resourceId"] == "chord"


def test_a_student_gets_no_assignment_picker(linked) -> None:
    answer = launch(Client(), linked.lms, LaunchSpec("u-stud", deep_link=True))
    assert answer.status_code == 403
    assert "only the LMS course's instructors may add SplayLab assignments" in answer.content.decode().replace("&#x27;", "'")


def test_a_deep_link_answer_needs_a_live_launch(linked) -> None:
    answer = Client().post("/lti/deep-link/", {"launch_id": "lti1p3-launch-made-up", "assignment": ["chord"]})
    assert answer.status_code == 400 and "expired" in answer.content.decode()


def test_the_roster_follows_the_lms_on_demand(linked, monkeypatch) -> None:
    monkeypatch.setattr("lti.views.roster_sync.delay", lambda context_id: None)
    assert launch(Client(), linked.lms, LaunchSpec("u-stud")).status_code == 302
    sam = LmsUser.objects.get(sub="u-stud").user
    linked.lms.members["u-new"] = Member("u-new", LEARNER, "Noa New", "noa@lms.example")
    linked.lms.members["u-ta"] = Member("u-ta", TA, "Tim Assistant", "tim@lms.example")
    linked.lms.members["u-stud"].status = "Inactive"  # dropped the course
    answer = client_for(linked.teacher).post(f"/api/courses/{linked.course.id}/lti/roster-sync/")
    assert answer.status_code == 200 and answer.json() == {"members": 3}  # teacher, new student, TA
    roles = {link.sub: Membership.objects.filter(course=linked.course, user=link.user).values_list("role", flat=True).first()
             for link in LmsUser.objects.all()}
    assert roles == {"u-stud": None, "u-new": "student", "u-ta": "ta", "u-teach": "instructor"}
    assert User.objects.filter(id=sam.id).exists()  # the account (and its work) stays
    assert Context.objects.get().roster_synced_at is not None


def test_an_instructor_launch_syncs_the_roster(linked, monkeypatch) -> None:
    monkeypatch.setattr("lti.views.roster_sync.delay", lambda context_id: tasks.roster_sync.apply((context_id,)))
    launch(Client(), linked.lms, LaunchSpec("u-teach"))
    assert LmsUser.objects.filter(sub="u-stud").exists()  # in the roster, never launched
    user = LmsUser.objects.get(sub="u-stud").user
    assert Membership.objects.get(course=linked.course, user=user).role == "student"


def test_roster_sync_before_any_launch_says_so(linked) -> None:
    answer = client_for(linked.teacher).post(f"/api/courses/{linked.course.id}/lti/roster-sync/")
    assert answer.status_code == 409 and "launch SplayLab from the LMS once" in answer.json()["detail"]
