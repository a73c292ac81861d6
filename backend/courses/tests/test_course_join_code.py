"""POST /api/courses/<id>/join-code/"""
from courses.models import Membership
from courses.tests.factories import course_make, member_add
from courses.tests.factories import client_for


def test_the_instructor_regenerates_it_and_the_old_one_stops_working(teacher, teacher_client, student,
                                                                      student_client) -> None:
    course = course_make()
    member_add(course, teacher, Membership.Role.INSTRUCTOR)
    old = course.join_code
    res = teacher_client.post(f"/api/courses/{course.id}/join-code/")
    assert res.status_code == 200
    new = res.json()["join_code"]
    assert new != old
    course.refresh_from_db()
    assert course.join_code == new
    assert student_client.post("/api/courses/join/", {"code": old}, format="json").status_code == 400
    assert student_client.post("/api/courses/join/", {"code": new}, format="json").status_code == 201


def test_only_the_course_instructors_may(teacher, ta, student) -> None:
    course, other = course_make("a"), course_make("b")
    member_add(course, ta, Membership.Role.TA)
    member_add(course, student)
    member_add(other, teacher, Membership.Role.INSTRUCTOR)
    old = course.join_code
    assert client_for(ta).post(f"/api/courses/{course.id}/join-code/").status_code == 403
    assert client_for(student).post(f"/api/courses/{course.id}/join-code/").status_code == 403
    assert client_for(teacher).post(f"/api/courses/{course.id}/join-code/").status_code == 404  # not theirs
    course.refresh_from_db()
    assert course.join_code == old
