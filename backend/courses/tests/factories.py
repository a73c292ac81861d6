from rest_framework.test import APIClient

from accounts.models import User
from courses.models import Course, Membership


def course_make(slug: str = "ds", *, name: str = "Distributed Systems", **extra: object) -> Course:
    return Course.objects.create(slug=slug, name=name, **extra)


def member_add(course: Course, user: User, role: str = Membership.Role.STUDENT) -> Membership:
    return Membership.objects.create(course=course, user=user, role=role)


def client_for(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def course_with(*, slug: str = "ds", instructors: tuple[User, ...] = (), tas: tuple[User, ...] = (),
                students: tuple[User, ...] = ()) -> Course:
    """A course and its members: staff rights over students' work come from such a course."""
    course = course_make(slug, name=slug)
    for role, users in ((Membership.Role.INSTRUCTOR, instructors), (Membership.Role.TA, tas),
                        (Membership.Role.STUDENT, students)):
        for user in users:
            member_add(course, user, role)
    return course
