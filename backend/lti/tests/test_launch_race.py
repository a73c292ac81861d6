"""Two first launches at once (a class opening the assignment the minute it is posted; a
double click in the LMS): both are let in, one account and one bound LMS course made, not a
unique-constraint 500 for the slower one. Real threads, each with its own database connection,
held at a barrier so that both bind at the same moment."""
from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connections
from django.test import Client

from accounts.models import User
from courses.models import Membership
from lti import views
from lti.models import Context, LmsUser

from .conftest import launch, login_then_auth
from .platform import LEARNER, LaunchSpec, Member


def _race(linked: Any, monkeypatch: pytest.MonkeyPatch, user_ids: list[str]) -> list[Any]:
    """Each user's launch form made in turn, then all posted at once, released together right
    before the binding (after pylti1p3's checks, whose HTTP calls would spread them out)."""
    forms = [(client, login_then_auth(client, linked.lms, LaunchSpec(uid))) for uid in user_ids
             for client in [Client()]]
    gate = threading.Barrier(len(forms), timeout=20)
    bind = views.launch_bind

    def bind_together(message: Any) -> Any:
        gate.wait()
        return bind(message)

    monkeypatch.setattr(views, "launch_bind", bind_together)
    answers: list[Any] = [None] * len(forms)

    def post(i: int, client: Client, form: dict[str, str]) -> None:
        try:
            answers[i] = client.post("/lti/launch/", form)
        except Exception as exc:  # noqa: BLE001 - the test client raises a view's exception
            answers[i] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=post, args=(i, c, f)) for i, (c, f) in enumerate(forms)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return answers


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("course_bound", [False, True], ids=["new LMS course", "LMS course bound before"])
def test_two_first_launches_of_one_new_user_at_once_both_get_in_as_one_account(
        linked, monkeypatch, course_bound: bool) -> None:
    if course_bound:  # by another's launch: then the account is all both would make
        linked.lms.members["u-other"] = Member("u-other", LEARNER, "Kim Student", "kim@lms.example")
        assert launch(Client(), linked.lms, LaunchSpec("u-other")).status_code == 302
    answers = _race(linked, monkeypatch, ["u-stud", "u-stud"])
    for answer in answers:
        assert not isinstance(answer, Exception), repr(answer)
        assert answer.status_code == 302 and answer["Location"] == f"/courses/{linked.course.id}", answer.content
    link = LmsUser.objects.get(platform=linked.platform, sub="u-stud")
    assert User.objects.filter(email="sam@lms.example").count() == 1
    assert Membership.objects.get(course=linked.course, user=link.user).role == "student"
    assert Context.objects.get(platform=linked.platform).course_id == linked.course.id


@pytest.mark.django_db(transaction=True)
def test_two_new_users_launching_a_new_lms_course_at_once_bind_it_once(linked, monkeypatch) -> None:
    linked.lms.members["u-other"] = Member("u-other", LEARNER, "Kim Student", "kim@lms.example")
    answers = _race(linked, monkeypatch, ["u-stud", "u-other"])
    for answer in answers:
        assert not isinstance(answer, Exception), repr(answer)
        assert answer.status_code == 302, answer.content
    context = Context.objects.get(platform=linked.platform)
    assert (context.context_id, context.course_id) == ("ctx-1", linked.course.id)
    assert sorted(LmsUser.objects.values_list("sub", flat=True)) == ["u-other", "u-stud"]
    assert Membership.objects.filter(course=linked.course, role="student").count() == 2
