"""A classroom: course `ds` with an instructor (teacher), a TA (tara) and two students
(student, alice); a second course `os` with its own TA (otto) and student (bob)."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from accounts.models import User
from accounts.tests.factories import user_make
from courses.models import Course, Membership
from courses.tests.factories import course_make, member_add


@dataclass
class Classroom:
    course: Course
    other_course: Course
    teacher: User
    ta: User
    student: User
    other_student: User
    other_ta: User
    outsider: User


@pytest.fixture
def classroom(teacher: User, ta: User, student: User, other_student: User) -> Classroom:
    course, other = course_make("ds"), course_make("os", name="Operating Systems")
    member_add(course, teacher, Membership.Role.INSTRUCTOR)
    member_add(course, ta, Membership.Role.TA)
    member_add(course, student)
    member_add(course, other_student)
    other_ta = user_make("otto", role=User.Role.TA)
    outsider = user_make("bob")
    member_add(other, other_ta, Membership.Role.TA)
    member_add(other, outsider)
    member_add(other, teacher, Membership.Role.INSTRUCTOR)
    return Classroom(course, other, teacher, ta, student, other_student, other_ta, outsider)


@pytest.fixture
def no_grading(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Submissions are queued but not graded: the task's .delay records the id (on commit:
    inside a test's transaction, only under django_capture_on_commit_callbacks)."""
    queued: list[int] = []
    monkeypatch.setattr("grading.tasks.submission_grade.delay", queued.append)
    return queued
