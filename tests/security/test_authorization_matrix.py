"""Who may do what (docs/decisions.md, "Authorization"): every API operation of backend/ ×
every kind of user, against the real PostgreSQL, plus the job websocket's Origin and rights.

One world per case: course X (students A and B, TA `ta`, instructor `instructor`) and course Y
(TA `ta_other`, instructor `instructor_other`), a site operator (Django staff, in no course) and
anonymous. Everything of A's (job, workspace, submissions, grade override, regrade request) lives
in X, and so do X's daemon, assignments and LMS registration; the scenario is the instructor's.
The job websocket's rules are in test_authorization_websocket.py.

Adding an endpoint: add its Case rows below; test_every_api_operation_has_a_case fails until
every (URL name, method) of backend/'s URL conf under /api/ has one.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from datetime import timedelta
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from accounts.tests.factories import user_make
from courses.models import Course, Membership
from courses.tests.factories import course_make, member_add
from daemons.models import BlacklistEntry, Daemon
from daemons.tests.factories import daemon_make
from grading.models import Assignment, GradeOverride, RegradeRequest, Submission
from grading.tests.factories import assignment_make, graded_make
from jobs.models import Job
from jobs.tests.factories import HELLO, job_make
from lti.keys import jwks
from lti.models import Context, Platform
from lti.services import platform_register
from lti.tests.platform import LEARNER, Member, TestLms
from scenarios.models import Scenario
from workspaces.models import Workspace
from workspaces.services import workspace_default_ensure

A, B, TA, TA_OTHER = "student_a", "student_b", "ta", "ta_other"
INSTRUCTOR, INSTRUCTOR_OTHER, OPERATOR, ANON = "instructor", "instructor_other", "operator", "anonymous"
ACTORS = (A, B, TA, TA_OTHER, INSTRUCTOR, INSTRUCTOR_OTHER, OPERATOR, ANON)
SIGNED_IN = tuple(a for a in ACTORS if a != ANON)


# ---- the expected answers, by kind of rule --------------------------------------------------

def everyone(ok: int) -> dict[str, int]:
    """Any signed-in user; anonymous 401."""
    return {**{a: ok for a in SIGNED_IN}, ANON: 401}


def members(ok: int) -> dict[str, int]:
    """Course X's members; outsiders 404 (the course's existence is not their business)."""
    return {A: ok, B: ok, TA: ok, INSTRUCTOR: ok, TA_OTHER: 404, INSTRUCTOR_OTHER: 404, OPERATOR: 404, ANON: 401}


def course_staff(ok: int) -> dict[str, int]:
    """X's instructor and TA; X's students 403; outsiders 404."""
    return {**members(ok), A: 403, B: 403}


def course_instructor(ok: int) -> dict[str, int]:
    return {**course_staff(ok), TA: 403}


def owner_and_staff(ok: int) -> dict[str, int]:
    """A's things (job, workspace, submission): A and X's staff; anyone else 404."""
    return {A: ok, TA: ok, INSTRUCTOR: ok, B: 404, TA_OTHER: 404, INSTRUCTOR_OTHER: 404, OPERATOR: 404, ANON: 401}


def daemon_managers(ok: int, *, other_instructor: int = 404) -> dict[str, int]:
    """X's daemon: X's instructor and the operator; Y's instructor does not manage it; no TA or
    student manages daemons (403)."""
    return {A: 403, B: 403, TA: 403, TA_OTHER: 403, INSTRUCTOR: ok, INSTRUCTOR_OTHER: other_instructor,
            OPERATOR: ok, ANON: 401}


def operator_only(ok: int) -> dict[str, int]:
    return {**{a: 403 for a in SIGNED_IN}, OPERATOR: ok, ANON: 401}


def any_course_staff(ok: int) -> dict[str, int]:
    """Adding to the shared scenario library: staff of any course, and the operator."""
    return {**{a: ok for a in SIGNED_IN}, A: 403, B: 403, ANON: 401}


def scenario_author(ok: int) -> dict[str, int]:
    """Changing a library scenario: its author (the instructor) and the operator."""
    return {**{a: 403 for a in SIGNED_IN}, INSTRUCTOR: ok, OPERATOR: ok, ANON: 401}


# ---- the world ------------------------------------------------------------------------------

@dataclass
class World:
    users: dict[str, User]
    course: Course
    other_course: Course
    job: Job
    workspace: Workspace
    assignment: Assignment
    draft: Assignment        # unpublished: staff only
    submission: Submission
    asked: Submission        # A's earlier one, with an open regrade request
    regrade_request: RegradeRequest
    platform: Platform       # X's LMS registration
    daemon: Daemon
    blacklist_entry: BlacklistEntry
    scenario: Scenario

    def client(self, actor: str) -> APIClient:
        client = APIClient()
        if actor != ANON:
            client.force_authenticate(self.users[actor])
        return client

    def url(self, template: str) -> str:
        return template.format(
            job=self.job.id, workspace=self.workspace.id, course=self.course.id, slug=self.assignment.slug,
            submission=self.submission.id, student=self.users[A].id, daemon=self.daemon.id,
            entry=self.blacklist_entry.id, scenario=self.scenario.id, asked=self.asked.id,
            regrade_request=self.regrade_request.id, platform=self.platform.id)


LMS_FIELDS = {"name": "Canvas", "issuer": "https://canvas.instructure.com", "client_id": "10000000000042",
              "deployment_ids": ["7:abc"], "auth_login_url": "https://sso.canvaslms.com/api/lti/authorize_redirect",
              "auth_token_url": "https://sso.canvaslms.com/login/oauth2/token",
              "key_set_url": "https://sso.canvaslms.com/api/lti/security/jwks"}


@contextmanager
def lms_bound(world: World) -> Iterator[None]:
    """X bound to a real LMS course (the test LMS of backend/lti, one learner) for a roster
    sync that really reads its NRPS roster: only the roster case pays for an LMS."""
    lms = TestLms(tool_base="http://testserver", tool_jwks=jwks())
    lms.members["u-1"] = Member("u-1", LEARNER, "Sam Student", "sam@lms.example")
    try:
        platform = platform_register(course=world.course, by=world.users[INSTRUCTOR], **lms.registration_fields())
        Context.objects.create(platform=platform, context_id="ctx-1", course=world.course,
                               memberships_url=f"{lms.url}/memberships")
        yield
    finally:
        lms.close()


def world_make() -> World:
    roles = {A: User.Role.STUDENT, B: User.Role.STUDENT, TA: User.Role.TA, TA_OTHER: User.Role.TA,
             INSTRUCTOR: User.Role.INSTRUCTOR, INSTRUCTOR_OTHER: User.Role.INSTRUCTOR, OPERATOR: User.Role.STUDENT}
    users = {a: user_make(a, role=role, is_staff=a == OPERATOR) for a, role in roles.items()}
    course, other = course_make("x", name="X"), course_make("y", name="Y")
    for actor, role in ((A, Membership.Role.STUDENT), (B, Membership.Role.STUDENT), (TA, Membership.Role.TA),
                        (INSTRUCTOR, Membership.Role.INSTRUCTOR)):
        member_add(course, users[actor], role)
    member_add(other, users[TA_OTHER], Membership.Role.TA)
    member_add(other, users[INSTRUCTOR_OTHER], Membership.Role.INSTRUCTOR)
    job = job_make(users[A], state=Job.State.RUNNING, churn="at 1s join 2", churn_positions=2,
                   churn_epoch=time.time())
    daemon, _ = daemon_make("lab-x")
    course.daemons.add(daemon)
    daemon_make("pool-1")  # the shared pool's: the operator's only
    assignment = assignment_make(course)
    submission = graded_make(assignment, users[A], 80.0, created_at=timezone.now() - timedelta(hours=2))
    GradeOverride.objects.create(assignment=assignment, student=users[A], score=90, by=users[INSTRUCTOR])
    asked = graded_make(assignment, users[A], 60.0, created_at=timezone.now() - timedelta(hours=3))
    regrade_request = RegradeRequest.objects.create(submission=asked, student=users[A], message="check 2?")
    platform = platform_register(course=course, by=users[INSTRUCTOR], **LMS_FIELDS)
    return World(
        users=users, course=course, other_course=other, job=job, workspace=workspace_default_ensure(user=users[A]),
        assignment=assignment, draft=assignment_make(course, "draft", published=False), submission=submission,
        asked=asked, regrade_request=regrade_request, platform=platform,
        daemon=daemon, blacklist_entry=BlacklistEntry.objects.create(address="10.0.0.1"),
        scenario=Scenario.objects.create(name="library", text="at 1s join 1", owner=users[INSTRUCTOR]))


# ---- the cases ------------------------------------------------------------------------------

Body = Callable[[World, str], dict[str, Any]]


@dataclass(frozen=True)
class Case:
    name: str                 # the URL pattern's name
    method: str
    url: str                  # World.url's template
    expect: dict[str, int]    # status per actor
    body: Body | None = None
    # Lists: which item must (and must not) be listed, and for whom.
    item: Callable[[World], object] | None = None
    item_seen_by: frozenset[str] = field(default_factory=frozenset)
    check: Callable[[Any], None] | None = None  # more about a 2xx body
    around: Callable[[World], Any] | None = None  # a context manager the request runs inside


def _ids(body: Any) -> set[object]:
    items = body.get("results", body) if isinstance(body, dict) else body
    return {i["id"] for i in items}


def _no_code(body: Any) -> None:
    assert all("code" not in job for job in body), "the job list must not carry code"


def _listed(platforms: list[dict[str, Any]], client_id: str) -> None:
    assert [p["client_id"] for p in platforms] == [client_id]


def _equal(body: Any, expected: Any) -> None:
    assert body == expected


def _no_source(body: Any) -> None:
    assert all("source" not in s and "report" not in s for s in body), "a list of submissions carries no code"


JOB = "/api/jobs/{job}/"
WORKSPACE = "/api/workspaces/{workspace}/"
COURSE = "/api/courses/{course}/"
ASSIGNMENT = COURSE + "assignments/{slug}/"
DAEMON = "/api/daemons/{daemon}/"
OVERRIDE = COURSE + "gradebook/{slug}/{student}/"
LTI = COURSE + "lti/"
BAD_LOGIN: Body = lambda w, actor: {"username": f"nobody-{actor}", "password": "wrong"}  # noqa: E731

CASES: list[Case] = [
    # accounts: the session and token endpoints answer everyone the same
    Case("auth-login", "post", "/api/auth/login/", {a: 400 for a in ACTORS}, BAD_LOGIN),
    Case("auth-logout", "post", "/api/auth/logout/", {a: 204 for a in ACTORS}),
    Case("auth-me", "get", "/api/auth/me/", {**everyone(200), ANON: 204}),  # no one signed in: an answer
    Case("auth-token", "get", "/api/auth/token/", everyone(200)),
    Case("auth-token", "post", "/api/auth/token/", {a: 400 for a in ACTORS}, BAD_LOGIN),
    # courses
    Case("course-list", "get", "/api/courses/", everyone(200), item=lambda w: w.course.id,
         item_seen_by=frozenset({A, B, TA, INSTRUCTOR})),
    Case("course-list", "post", "/api/courses/",  # instructor accounts create courses
         {**everyone(403), INSTRUCTOR: 201, INSTRUCTOR_OTHER: 201},
         lambda w, actor: {"name": "New", "slug": f"new-{actor}".replace("_", "-")}),
    Case("course-join", "post", "/api/courses/join/",  # the code is the secret: 201 enrolled, 200 member
         {**members(200), TA_OTHER: 201, INSTRUCTOR_OTHER: 201, OPERATOR: 201},
         lambda w, actor: {"code": w.course.join_code}),
    Case("course-detail", "get", COURSE, members(200)),
    Case("course-detail", "patch", COURSE, course_instructor(200), lambda w, actor: {"max_late_days": 5}),
    Case("course-join-code", "post", COURSE + "join-code/", course_instructor(200)),
    # grading
    Case("assignment-list", "get", COURSE + "assignments/", members(200), item=lambda w: w.draft.id,
         item_seen_by=frozenset({TA, INSTRUCTOR})),
    Case("assignment-detail", "get", ASSIGNMENT, members(200)),
    Case("assignment-detail", "patch", ASSIGNMENT, course_instructor(200), lambda w, actor: {"summary": "new"}),
    Case("assignment-regrade", "post", ASSIGNMENT + "regrade/", course_staff(202)),
    Case("submission-list", "get", ASSIGNMENT + "submissions/", members(200), item=lambda w: w.submission.id,
         item_seen_by=frozenset({A, TA, INSTRUCTOR}), check=_no_source),
    Case("submission-list", "post", ASSIGNMENT + "submissions/", members(201),
         lambda w, actor: {"source": "print('mine')\n"}),
    Case("submission-detail", "get", "/api/submissions/{submission}/", owner_and_staff(200)),
    Case("submission-regrade", "post", "/api/submissions/{submission}/regrade/",
         {**owner_and_staff(202), A: 403}),
    Case("gradebook", "get", COURSE + "gradebook/", course_staff(200)),
    Case("gradebook-csv", "get", COURSE + "gradebook.csv", course_staff(200)),
    Case("grade-override", "put", OVERRIDE, course_staff(200), lambda w, actor: {"score": 95, "comment": "ok"}),
    Case("grade-override", "delete", OVERRIDE, course_staff(204)),
    Case("assignment-distribution", "get", ASSIGNMENT + "distribution/", course_staff(200)),
    # regrade requests: a student asks about their own graded submission, staff read and answer
    Case("submission-regrade-requests", "get", "/api/submissions/{asked}/regrade-requests/", owner_and_staff(200),
         item=lambda w: w.regrade_request.id, item_seen_by=frozenset({A, TA, INSTRUCTOR})),
    Case("submission-regrade-requests", "post", "/api/submissions/{submission}/regrade-requests/",
         {**owner_and_staff(201), TA: 403, INSTRUCTOR: 403}, lambda w, actor: {"message": "look at check 3"}),
    Case("course-regrade-requests", "get", COURSE + "regrade-requests/", course_staff(200),
         item=lambda w: w.regrade_request.id, item_seen_by=frozenset({TA, INSTRUCTOR})),
    Case("regrade-request-answer", "post", "/api/regrade-requests/{regrade_request}/answer/", course_staff(200),
         lambda w, actor: {"answer": "check 2 is right"}),
    # the course's LMS: instructors register and remove it, staff read it and sync the roster
    Case("lti-platform-list", "get", LTI + "platforms/", course_staff(200),
         check=lambda body: _listed(body["platforms"], "10000000000042")),
    Case("lti-platform-list", "post", LTI + "platforms/", course_instructor(201),
         lambda w, actor: {**LMS_FIELDS, "client_id": "10000000000043"}),
    Case("lti-platform-detail", "patch", LTI + "platforms/{platform}/", course_instructor(200),
         lambda w, actor: {"name": "Canvas (spring)"}),
    Case("lti-platform-detail", "delete", LTI + "platforms/{platform}/", course_instructor(204)),
    Case("lti-roster-sync", "post", LTI + "roster-sync/", course_staff(200), around=lms_bound,
         check=lambda body: _equal(body, {"members": 1})),
    # jobs and what they produced
    Case("job-list", "get", "/api/jobs/", everyone(200), item=lambda w: w.job.id,
         item_seen_by=frozenset({A, TA, INSTRUCTOR}), check=_no_code),
    Case("job-list", "post", "/api/jobs/", everyone(201),
         lambda w, actor: {"code": HELLO, "mode": "sim", "nodes": 2, "duration": 5}),
    Case("job-detail", "get", JOB, owner_and_staff(200)),
    Case("job-detail", "patch", JOB, {**owner_and_staff(200), TA: 403, INSTRUCTOR: 403},  # only the owner names it
         lambda w, actor: {"name": "renamed"}),
    Case("job-rerun", "post", JOB + "rerun/", owner_and_staff(201)),   # a new job of whoever asks
    Case("job-stop", "post", JOB + "stop/", owner_and_staff(200)),
    Case("job-churn", "get", JOB + "churn/", owner_and_staff(200)),
    Case("job-logs", "get", JOB + "logs/", owner_and_staff(200)),
    Case("job-logs-download", "get", JOB + "logs/download/", owner_and_staff(200)),
    Case("job-metrics", "get", JOB + "metrics/", owner_and_staff(200)),
    Case("job-metric-chunks", "get", JOB + "metrics/chunks/", owner_and_staff(200)),
    Case("job-trace", "get", JOB + "trace/", owner_and_staff(200)),
    Case("job-archive", "get", JOB + "archive/", owner_and_staff(200)),
    Case("job-retention", "get", JOB + "retention/", owner_and_staff(200)),
    Case("job-retention", "patch", JOB + "retention/", {**owner_and_staff(200), A: 403},  # staff keep a job
         lambda w, actor: {"keep": True}),
    # workspaces: staff read a student's, only the owner writes
    Case("workspace-list", "get", "/api/workspaces/", everyone(200), item=lambda w: w.workspace.id,
         item_seen_by=frozenset({A})),
    Case("workspace-list", "post", "/api/workspaces/", everyone(201), lambda w, actor: {"name": "extra"}),
    Case("workspace-detail", "get", WORKSPACE, owner_and_staff(200)),
    Case("workspace-detail", "put", WORKSPACE, {**owner_and_staff(200), TA: 403, INSTRUCTOR: 403},
         lambda w, actor: {"files": [{"path": "app.lua", "content": "print(1)\n"}]}),
    # daemons: X's instructor manages X's; the operator all of them and the blacklist
    Case("daemon-list", "get", "/api/daemons/", daemon_managers(200, other_instructor=200),
         item=lambda w: w.daemon.id, item_seen_by=frozenset({INSTRUCTOR, OPERATOR})),
    Case("daemon-list", "post", "/api/daemons/", daemon_managers(201),
         lambda w, actor: {"name": f"new-{actor}", "max_instances": 2, "port_lo": 30000, "port_hi": 30010,
                           "course": w.course.id}),
    Case("daemon-revoke", "post", DAEMON + "revoke/", daemon_managers(200)),
    Case("daemon-rotate-key", "post", DAEMON + "rotate-key/", daemon_managers(200)),
    Case("daemon-drain", "post", DAEMON + "drain/", daemon_managers(200)),
    Case("daemon-undrain", "post", DAEMON + "undrain/", daemon_managers(200)),
    Case("daemon-reachability", "get", "/api/daemons/reachability/", daemon_managers(200, other_instructor=200)),
    Case("daemon-reachability", "post", "/api/daemons/reachability/", daemon_managers(202, other_instructor=202)),
    Case("daemon-blacklist", "get", "/api/daemons/blacklist/", daemon_managers(200, other_instructor=200)),
    Case("daemon-blacklist", "post", "/api/daemons/blacklist/", operator_only(201),
         lambda w, actor: {"address": "10.9.9.9"}),
    Case("daemon-blacklist-entry", "delete", "/api/daemons/blacklist/{entry}/", operator_only(204)),
    # the scenario library: shared by every course
    Case("scenario-list", "get", "/api/scenarios/", everyone(200), item=lambda w: w.scenario.id,
         item_seen_by=frozenset(SIGNED_IN)),
    Case("scenario-list", "post", "/api/scenarios/", any_course_staff(201),
         lambda w, actor: {"name": f"s-{actor}", "text": "at 1s join 1"}),
    Case("scenario-preview", "post", "/api/scenarios/preview/", everyone(200), lambda w, actor: {"text": "at 1s join 1"}),
    Case("scenario-trace", "post", "/api/scenarios/trace/", everyone(200), lambda w, actor: {"text": "at 1s join 1"}),
    Case("scenario-detail", "get", "/api/scenarios/{scenario}/", everyone(200)),
    Case("scenario-detail", "put", "/api/scenarios/{scenario}/", scenario_author(200),
         lambda w, actor: {"name": "library", "text": "at 1s join 2"}),
    Case("scenario-detail", "delete", "/api/scenarios/{scenario}/", scenario_author(204)),
    # the API's own description: public
    Case("schema", "get", "/api/schema/", {a: 200 for a in ACTORS}),
    Case("swagger-ui", "get", "/api/docs/", {a: 200 for a in ACTORS}),
]

# Not the API: Django's admin (its own staff login) and the SPA's index page.
NOT_API = {"spa"}


@pytest.mark.django_db
@pytest.mark.parametrize("actor", ACTORS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.method.upper()} {c.name}")
def test_each_operation_answers_each_actor_as_the_rules_say(case: Case, actor: str) -> None:
    world = world_make()
    body = case.body(world, actor) if case.body else None
    with case.around(world) if case.around else nullcontext():
        res = getattr(world.client(actor), case.method)(world.url(case.url), body, format="json")
    expected = case.expect[actor]
    assert res.status_code == expected, f"{actor}: {res.status_code} (expected {expected}): {res.content[:300]!r}"
    if res.status_code >= 300:
        return
    if case.item is not None:
        seen = case.item(world) in _ids(res.json())
        assert seen == (actor in case.item_seen_by), f"{actor} {'sees' if seen else 'misses'} the item"
    if case.check is not None:
        case.check(res.json())


def _api_operations() -> set[tuple[str, str]]:
    """(URL name, method) of every view under /api/ (methods: the view class's handlers)."""
    out: set[tuple[str, str]] = set()

    def walk(patterns: list, prefix: str) -> None:
        for p in patterns:
            route = prefix + str(p.pattern)
            if isinstance(p, URLResolver):
                walk(p.url_patterns, route)
            elif isinstance(p, URLPattern) and route.lstrip("^").startswith("api/"):
                view = getattr(p.callback, "view_class", None) or getattr(p.callback, "cls", None)
                assert view is not None and p.name, f"{route}: name it and make it a class-based view"
                for method in ("get", "post", "put", "patch", "delete"):
                    if hasattr(view, method):
                        out.add((p.name, method))
    walk(get_resolver().url_patterns, "")
    return out


def test_every_api_operation_has_a_case() -> None:
    covered = {(c.name, c.method) for c in CASES}
    missing = _api_operations() - covered
    assert not missing, f"add Case rows for {sorted(missing)}"
    assert not covered - _api_operations(), f"cases for operations that no longer exist: {sorted(covered - _api_operations())}"
    assert all(set(c.expect) == set(ACTORS) for c in CASES)
