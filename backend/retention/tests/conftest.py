"""Fixtures of the retention tests: a course (30 days) with its instructor (the teacher), the
student and the other student, and a TA of that course."""
from __future__ import annotations

import pytest

from accounts.models import User
from accounts.tests.factories import user_make
from courses.models import Membership
from courses.tests.factories import course_make, member_add


@pytest.fixture
def course(teacher, student, other_student):
    course = course_make(retention_days=30)
    member_add(course, teacher, Membership.Role.INSTRUCTOR)
    member_add(course, student)
    member_add(course, other_student)
    return course


@pytest.fixture
def course_ta(course) -> User:
    ta = user_make("course-ta", role=User.Role.TA)
    member_add(course, ta, Membership.Role.TA)
    return ta
