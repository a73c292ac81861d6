"""An instructor manages their courses' daemons only (docs/decisions.md, "Authorization")."""
from accounts.models import User
from accounts.tests.factories import user_make
from courses.tests.factories import client_for, course_with
from daemons.tests.factories import daemon_make
from jobs.tests.factories import instance_make, job_make


def test_an_instructor_lists_their_courses_daemons_and_only_jobs_they_may_see(db) -> None:
    lecturer, other_lecturer = (user_make(n, role=User.Role.INSTRUCTOR) for n in ("lecturer", "other"))
    mine, theirs = user_make("mine"), user_make("theirs")
    x = course_with(slug="x", instructors=(lecturer,), students=(mine,))
    y = course_with(slug="y", instructors=(other_lecturer,), students=(theirs,))
    shared, _ = daemon_make("shared")
    x.daemons.add(shared)
    y.daemons.add(shared)
    daemon_make("pool")  # no course: the operators'
    my_job, their_job = job_make(mine), job_make(theirs)
    instance_make(my_job, 1, shared)
    instance_make(their_job, 1, shared, port=20005)
    [row] = client_for(lecturer).get("/api/daemons/").json()
    assert row["name"] == "shared" and row["active_instances"] == 2
    assert [j["id"] for j in row["running_jobs"]] == [my_job.id]


def test_an_instructor_creates_a_daemon_for_a_course_they_instruct(db) -> None:
    lecturer, other_lecturer = (user_make(n, role=User.Role.INSTRUCTOR) for n in ("lecturer", "other"))
    x = course_with(slug="x", instructors=(lecturer,))
    y = course_with(slug="y", instructors=(other_lecturer,))
    body = {"name": "lab-9", "max_instances": 2, "port_lo": 30000, "port_hi": 30009}
    res = client_for(lecturer).post("/api/daemons/", body, format="json")
    assert res.status_code == 400 and "only site operators add to the shared pool" in res.json()["course"][0]
    assert client_for(lecturer).post("/api/daemons/", {**body, "course": y.id}, format="json").status_code == 404
    res = client_for(lecturer).post("/api/daemons/", {**body, "course": x.id}, format="json")
    assert res.status_code == 201
    assert [d.name for d in x.daemons.all()] == ["lab-9"]
    assert client_for(other_lecturer).post(f"/api/daemons/{res.json()['daemon']['id']}/drain/").status_code == 404
