"""Reads on courses, and the one place that decides what a user is in a course.

A user's role in a course is their Membership's role (superusers count as instructors of
every course); the global User.role does not open a course. Not a member: 404, whatever the
object (its existence is not the user's business); a member without the role: 403.

Objects without a course of their own (jobs, workspaces) belong to the courses their owner is a
student of: `supervised_q` is the one rule every app's selector uses for them (docs/decisions.md,
"Authorization")."""
from __future__ import annotations

from dataclasses import dataclass

from django.db.models import OuterRef, Q, QuerySet, Subquery
from django.http import Http404
from rest_framework.exceptions import PermissionDenied

from accounts.models import User

from .models import Course, Membership

Role = Membership.Role


@dataclass(frozen=True)
class CourseAccess:
    course: Course
    role: str

    @property
    def is_instructor(self) -> bool:
        return self.role == Role.INSTRUCTOR

    @property
    def is_staff(self) -> bool:
        """Instructors and TAs: they see every student's work and grades in this course."""
        return self.role in (Role.INSTRUCTOR, Role.TA)


def _courses_with_role(user: User) -> QuerySet[Course]:
    """The user's courses, each with `my_role`."""
    role = Membership.objects.filter(course=OuterRef("pk"), user=user).values("role")[:1]
    qs = Course.objects.annotate(my_role=Subquery(role))
    return qs if user.is_superuser else qs.filter(memberships__user=user)


def course_list(*, user: User) -> QuerySet[Course]:
    """The user's courses, each with `my_role` and its daemons (the list shows them)."""
    return _courses_with_role(user).prefetch_related("daemons").order_by("name", "id")


def course_access(*, user: User, course_id: int) -> CourseAccess:
    # One query: every course-scoped request asks it (a class polling its submissions), and
    # few of them read the course's daemons (those that do load them then).
    course = _courses_with_role(user).filter(id=course_id).first()
    if course is None:
        raise Http404("no such course")
    if course.my_role is None:  # a superuser outside the course
        course.my_role = Role.INSTRUCTOR
    return CourseAccess(course=course, role=course.my_role)


def course_access_staff(*, user: User, course_id: int) -> CourseAccess:
    access = course_access(user=user, course_id=course_id)
    if not access.is_staff:
        raise PermissionDenied("only the course's instructors and TAs may do this")
    return access


def course_access_instructor(*, user: User, course_id: int) -> CourseAccess:
    access = course_access(user=user, course_id=course_id)
    if not access.is_instructor:
        raise PermissionDenied("only the course's instructors may do this")
    return access


def user_is_operator(user: User) -> bool:
    """The site's operators (superusers, Django admin staff) run the machines: every daemon and
    the blacklist. Students' work stays their courses' business (only superusers see all of it);
    nobody else holds a right outside their courses."""
    return bool(user.is_authenticated and user.is_active and (user.is_superuser or user.is_staff))


def staff_course_ids(*, user: User, instructors_only: bool = False) -> QuerySet[Membership]:
    """The ids of the courses where the user is an instructor (and a TA unless instructors_only),
    as a subquery."""
    roles = [Role.INSTRUCTOR] if instructors_only else [Role.INSTRUCTOR, Role.TA]
    return Membership.objects.filter(user_id=user.id, role__in=roles).values("course_id")


def supervised_student_ids(*, user: User) -> QuerySet[Membership]:
    """The ids of the students of the courses the user is staff of, as a subquery."""
    return Membership.objects.filter(role=Role.STUDENT,
                                     course_id__in=staff_course_ids(user=user)).values("user_id")


def supervised_q(*, user: User, owner_field: str = "owner") -> Q | None:
    """What of a user-owned model (a job, a workspace) this user may read: their own, and their
    course's students' when they are its instructor or TA. None: everything (superusers)."""
    if user.is_superuser:
        return None
    own = Q(**{f"{owner_field}_id": user.id})
    # Most users are staff of no course: one plain query spares them the nested subqueries,
    # which cost a student's list more CPU to build than to run (bench/web_cpu.py).
    courses = list(staff_course_ids(user=user).values_list("course_id", flat=True))
    if not courses:
        return own
    students = Membership.objects.filter(role=Role.STUDENT, course_id__in=courses).values("user_id")
    return own | Q(**{f"{owner_field}_id__in": students})


def supervises(*, user: User, owner_id: int) -> bool:
    """The user is the owner, or staff of a course the owner is a student of (or a superuser)."""
    if user.is_superuser or user.id == owner_id:
        return True
    return supervised_student_ids(user=user).filter(user_id=owner_id).exists()


def course_students(*, course: Course) -> QuerySet[User]:
    return User.objects.filter(memberships__course=course,
                               memberships__role=Role.STUDENT).order_by("username")


@dataclass(frozen=True)
class StudentQuota:
    """The job quotas a student works under (the most generous of their courses': one course's
    tight quota must not block work for another)."""
    max_nodes_per_job: int
    max_concurrent_jobs: int
    minutes_per_day: int
    courses: str   # the courses' names, for messages


def _courses_as_student_only(user: User) -> list[Course] | None:
    """The courses of a user who is a student in every course they are in, or None: superusers,
    staff of some course and users in no course are bound by no course's rules (quotas,
    daemons). The account's User.role does not count: a TA account enrolled as a student only
    is a student."""
    if user.is_superuser:
        return None
    memberships = list(Membership.objects.filter(user=user).select_related("course")
                       .prefetch_related("course__daemons"))
    if not memberships or any(m.role != Role.STUDENT for m in memberships):
        return None
    return [m.course for m in memberships]


def student_quota(*, user: User) -> StudentQuota | None:
    """None when no quota applies (_courses_as_student_only); the service's own limits still apply."""
    courses = _courses_as_student_only(user)
    if courses is None:
        return None
    return StudentQuota(max_nodes_per_job=max(c.max_nodes_per_job for c in courses),
                        max_concurrent_jobs=max(c.max_concurrent_jobs for c in courses),
                        minutes_per_day=max(c.minutes_per_day_per_student for c in courses),
                        courses=", ".join(sorted(c.name for c in courses)))


def student_daemons(*, user: User) -> set[int] | None:
    """The daemons a student's live jobs may use: the union of their courses' daemons when every
    course they are a student of names some (a class's own machines), else None (any daemon).
    Staff of a course, superusers and instructor or TA accounts are never restricted."""
    courses = _courses_as_student_only(user)
    if courses is None:
        return None
    per_course = [{d.id for d in c.daemons.all()} for c in courses]
    if not all(per_course):
        return None
    return set().union(*per_course)
