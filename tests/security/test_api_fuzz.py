"""Schema fuzzing (issue 20): schemathesis generates requests from /api/schema/ (valid ones and
ones that break the schema) for every operation, as a student, as a teacher and signed out, and calls
Django's WSGI app in-process (the project serves ASGI; the views are the same). Every answer
must be no server error, and its status code, content type and body must be what the schema
documents for that operation. Bounded and deterministic: FUZZ_EXAMPLES examples per operation
and role (SPLAYLAB_FUZZ_EXAMPLES raises it for a longer hunt), derandomized (a fixed seed)."""
from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import schemathesis
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (content_type_conformance, response_schema_conformance,
                                               status_code_conformance)

from accounts.models import User
from accounts.tests.factories import user_make
from courses.tests.factories import course_with
from grading.models import RegradeRequest
from grading.tests.factories import assignment_make, graded_make
from jobs.tests.factories import job_make
from lti.services import platform_register
from scenarios.models import Scenario
from workspaces.services import workspace_default_ensure

FUZZ_EXAMPLES = int(os.environ.get("SPLAYLAB_FUZZ_EXAMPLES", "6"))
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]

schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())


@pytest.fixture
def wsgi_in_test_transaction(db: None) -> Iterator[None]:
    """Requests run inside the test's transaction: like django.test.Client, keep Django from
    closing the connection at each request's end (that would end the transaction). Failed-attempt
    counters start empty (the fuzzer guesses passwords)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    cache.clear()
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def tokens(wsgi_in_test_transaction: None) -> dict[str, str]:
    """A course with its instructor and a student, each with a job, a workspace, a scenario
    (ids 1.. exist, so some generated ids find objects), an assignment, and their API tokens."""
    teacher = user_make("teacher", role=User.Role.INSTRUCTOR)
    student = user_make("student", role=User.Role.STUDENT)
    course = course_with(instructors=(teacher,), students=(student,))
    for user in (student, teacher):
        job_make(user)
        workspace_default_ensure(user=user)
    Scenario.objects.create(owner=teacher, name="flat", text="at 0s join 2\nat 10s stop\n")
    # What the grading and LMS operations act on: a graded submission with a regrade request,
    # and an LMS registration.
    submission = graded_make(assignment_make(course), student, 70.0)
    RegradeRequest.objects.create(submission=submission, student=student, message="check 2?")
    platform_register(course=course, by=teacher, name="Canvas", issuer="https://canvas.instructure.com",
                      client_id="42", deployment_ids=["1:a"], auth_login_url="https://lms.example/auth",
                      auth_token_url="https://lms.example/token", key_set_url="https://lms.example/jwks")
    return {u.username: Token.objects.get_or_create(user=u)[0].key for u in (student, teacher)}


@pytest.mark.parametrize("role", ["student", "teacher", "anonymous"])
@schema.parametrize()
@settings(max_examples=FUZZ_EXAMPLES, derandomize=True, database=None, deadline=None,
          phases=[Phase.explicit, Phase.generate],
          suppress_health_check=list(HealthCheck))
def test_every_answer_is_documented_and_no_server_error(case: schemathesis.Case, role: str,
                                                        tokens: dict[str, str]) -> None:
    headers = {"Authorization": f"Token {tokens[role]}"} if role in tokens else {}
    case.call_and_validate(headers=headers, checks=CHECKS)
