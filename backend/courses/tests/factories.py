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
