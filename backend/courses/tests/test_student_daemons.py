"""courses.selectors.student_daemons: where a student's live jobs may run."""
from courses.models import Course, Membership
from courses.selectors import student_daemons
from daemons.tests.factories import daemon_make


def _course(slug: str, *daemons) -> Course:
    c = Course.objects.create(name=slug.upper(), slug=slug)
    c.daemons.add(*daemons)
    return c


def test_the_union_of_the_courses_daemons_when_every_course_names_some(student, teacher) -> None:
    (d1, _), (d2, _), (d3, _) = daemon_make("lab-1"), daemon_make("lab-2"), daemon_make("lab-3")
    a, b = _course("a", d1), _course("b", d2, d3)
    Membership.objects.create(user=student, course=a, role=Membership.Role.STUDENT)
    assert student_daemons(user=student) == {d1.id}
    Membership.objects.create(user=student, course=b, role=Membership.Role.STUDENT)
    assert student_daemons(user=student) == {d1.id, d2.id, d3.id}
    Membership.objects.create(user=student, course=_course("c"), role=Membership.Role.STUDENT)
    assert student_daemons(user=student) is None   # a course without machines of its own: any daemon
    Membership.objects.create(user=teacher, course=a, role=Membership.Role.INSTRUCTOR)
    assert student_daemons(user=teacher) is None


def test_the_course_role_counts_not_the_account_role(ta) -> None:
    (d1, _) = daemon_make("lab-1")
    Membership.objects.create(user=ta, course=_course("a", d1), role=Membership.Role.STUDENT)
    assert student_daemons(user=ta) == {d1.id}  # a TA account, a student here


def test_a_student_in_no_course_or_staff_somewhere_may_use_any_daemon(student) -> None:
    (d1, _) = daemon_make("lab-1")
    assert student_daemons(user=student) is None
    Membership.objects.create(user=student, course=_course("a", d1), role=Membership.Role.STUDENT)
    Membership.objects.create(user=student, course=_course("b", d1), role=Membership.Role.TA)
    assert student_daemons(user=student) is None
