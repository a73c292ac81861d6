"""GET/PATCH /api/courses/<id>/ and GET/POST /api/courses/"""
from courses.models import Course, Membership
from courses.tests.factories import course_make, member_add
from daemons.tests.factories import daemon_make
from courses.tests.factories import client_for


def test_quotas_and_late_policy_have_their_defaults(db) -> None:
    course = course_make()
    assert (course.max_nodes_per_job, course.max_concurrent_jobs, course.minutes_per_day_per_student) == (200, 3, 120)
    assert (course.late_penalty_percent, course.max_late_days) == (10, 3)
    assert list(course.daemons.all()) == []


def test_a_student_sees_the_settings_but_not_the_join_code(student, student_client) -> None:
    course = course_make()
    member_add(course, student)
    body = student_client.get(f"/api/courses/{course.id}/").json()
    assert body == {"id": course.id, "name": "Distributed Systems", "slug": "ds", "role": "student",
                    "join_code": None, "max_nodes_per_job": 200, "max_concurrent_jobs": 3,
                    "minutes_per_day_per_student": 120, "late_penalty_percent": 10, "max_late_days": 3,
                    "daemons": [], "retention_days": 30, "retention_max_mb_per_job": 100, "disk_use": None}


def test_instructors_and_tas_see_the_join_code(teacher, ta) -> None:
    course = course_make()
    member_add(course, teacher, Membership.Role.INSTRUCTOR)
    member_add(course, ta, Membership.Role.TA)
    for user in (teacher, ta):
        assert client_for(user).get(f"/api/courses/{course.id}/").json()["join_code"] == course.join_code


def test_a_course_you_are_not_in_is_a_404(teacher_client, db) -> None:
    course = course_make()  # the teacher's global role does not open it
    assert teacher_client.get(f"/api/courses/{course.id}/").status_code == 404
    assert teacher_client.patch(f"/api/courses/{course.id}/", {"max_late_days": 1}, format="json").status_code == 404


def test_the_instructor_sets_quotas_late_policy_and_daemons(teacher, teacher_client) -> None:
    course = course_make()
    member_add(course, teacher, Membership.Role.INSTRUCTOR)
    daemon, _ = daemon_make()
    member_add(other := course_make("os", name="Operating Systems"), teacher, Membership.Role.INSTRUCTOR)
    other.daemons.add(daemon)  # the teacher manages it already, through their other course
    res = teacher_client.patch(f"/api/courses/{course.id}/", {
        "max_nodes_per_job": 50, "max_concurrent_jobs": 1, "minutes_per_day_per_student": 30,
        "late_penalty_percent": 25, "max_late_days": 2, "daemons": [daemon.id]}, format="json")
    assert res.status_code == 200, res.json()
    assert res.json()["daemons"] == [{"id": daemon.id, "name": daemon.name}]
    course.refresh_from_db()
    assert (course.max_nodes_per_job, course.max_concurrent_jobs, course.minutes_per_day_per_student,
            course.late_penalty_percent, course.max_late_days) == (50, 1, 30, 25, 2)
    res = teacher_client.patch(f"/api/courses/{course.id}/", {"late_penalty_percent": 101}, format="json")
    assert res.status_code == 400 and "late_penalty_percent" in res.json()
    res = teacher_client.patch(f"/api/courses/{course.id}/", {"daemons": [daemon.id + 99]}, format="json")
    assert res.json() == {"daemons": [f"no daemon with id {daemon.id + 99} among those you manage"]}
    pool, _ = daemon_make("pool-1")  # linked to no course: the site operators'
    res = teacher_client.patch(f"/api/courses/{course.id}/", {"daemons": [daemon.id, pool.id]}, format="json")
    assert res.json() == {"daemons": [f"no daemon with id {pool.id} among those you manage"]}
    assert list(course.daemons.all()) == [daemon]


def test_tas_and_students_cannot_change_settings(ta, student) -> None:
    course = course_make()
    member_add(course, ta, Membership.Role.TA)
    member_add(course, student)
    for user in (ta, student):
        res = client_for(user).patch(f"/api/courses/{course.id}/", {"max_late_days": 9}, format="json")
        assert res.status_code == 403
    course.refresh_from_db()
    assert course.max_late_days == 3


def test_the_list_holds_your_courses_with_your_role(student, student_client) -> None:
    mine, theirs = course_make("a"), course_make("b")
    member_add(mine, student)
    assert [(c["slug"], c["role"]) for c in student_client.get("/api/courses/").json()] == [("a", "student")]
    assert theirs.memberships.count() == 0


def test_an_instructor_creates_a_course_and_teaches_it(teacher, teacher_client, student_client) -> None:
    res = teacher_client.post("/api/courses/", {"name": "Networks", "slug": "net"}, format="json")
    assert (res.status_code, res.json()["role"]) == (201, "instructor")
    assert res.json()["join_code"] == Course.objects.get(slug="net").join_code
    assert teacher_client.post("/api/courses/", {"name": "N", "slug": "net"}, format="json").status_code == 400
    assert student_client.post("/api/courses/", {"name": "Mine", "slug": "mine"}, format="json").status_code == 403
