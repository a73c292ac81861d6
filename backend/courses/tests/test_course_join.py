"""POST /api/courses/join"""
from django.test import override_settings

from courses.models import Course, Membership
from courses.tests.factories import course_make, member_add

URL = "/api/courses/join/"


def test_the_join_code_enrols_a_student(student, student_client) -> None:
    course = course_make()
    res = student_client.post(URL, {"code": course.join_code}, format="json")
    assert res.status_code == 201
    assert (res.json()["id"], res.json()["role"]) == (course.id, "student")
    assert Membership.objects.get(course=course, user=student).role == Membership.Role.STUDENT


def test_the_code_is_read_in_any_case_with_spaces_and_dashes(student_client) -> None:
    course = course_make()
    typed = f" {course.join_code[:4].lower()}-{course.join_code[4:].lower()} "
    res = student_client.post("/api/courses/join", {"code": typed}, format="json")  # without the slash too
    assert (res.status_code, res.json()["id"]) == (201, course.id)


def test_a_wrong_code_is_a_400_naming_it(student_client) -> None:
    course_make()
    res = student_client.post(URL, {"code": "NOPE2345"}, format="json")
    assert res.status_code == 400
    assert res.json() == {"detail": "no course with join code 'NOPE2345'"}
    assert not Membership.objects.exists()


def test_joining_again_keeps_the_role(teacher, teacher_client) -> None:
    course = course_make()
    member_add(course, teacher, Membership.Role.INSTRUCTOR)
    res = teacher_client.post(URL, {"code": course.join_code}, format="json")
    assert (res.status_code, res.json()["role"]) == (200, "instructor")
    assert Membership.objects.get(user=teacher).role == Membership.Role.INSTRUCTOR


def test_anonymous_gets_401(anon_client, db) -> None:
    assert anon_client.post(URL, {"code": course_make().join_code}, format="json").status_code == 401


def test_every_course_gets_its_own_code(db) -> None:
    codes = {course_make(f"c{i}").join_code for i in range(20)}
    assert len(codes) == 20
    assert all(len(c) == 8 and c.isalnum() and c.isupper() for c in codes)
    assert not any(ch in "".join(codes) for ch in "01OIL")
    assert Course.objects.count() == 20


@override_settings(SPLAYLAB_JOIN_FAILURES_PER_USER=3)
def test_wrong_codes_are_limited_per_user(student_client, other_client) -> None:
    course = course_make()
    assert [student_client.post(URL, {"code": f"NOPE{i}"}, format="json").status_code for i in range(3)] == [400] * 3
    res = student_client.post(URL, {"code": course.join_code}, format="json")
    assert res.status_code == 429
    assert int(res["Retry-After"]) >= 1
    assert "wrong join codes from your account" in res.json()["detail"]
    assert other_client.post(URL, {"code": course.join_code}, format="json").status_code == 201
