"""manage.py seed_demo"""
from io import StringIO

from django.contrib.auth import authenticate
from django.core.management import call_command

from accounts.models import User
from courses.models import Course, Membership
from lib.lua_syntax import lua_syntax_check
from workspaces.models import Workspace


def test_seed_is_idempotent_and_logins_work(db) -> None:
    call_command("seed_demo", stdout=StringIO())
    call_command("seed_demo", stdout=StringIO())
    course = Course.objects.get()
    assert course.name == "Distributed Systems (demo)"
    assert authenticate(username="teacher", password="teacher-demo").role == User.Role.INSTRUCTOR
    assert authenticate(username="student", password="student-demo").role == User.Role.STUDENT
    assert Membership.objects.count() == 2
    assert Workspace.objects.filter(owner__username="student").count() == 1


def test_demo_app_is_valid_lua_using_the_node_runtime(db) -> None:
    call_command("seed_demo", stdout=StringIO())
    app = Workspace.objects.get(owner__username="student").files.get(path="app.lua").content
    assert lua_syntax_check(app) is None
    for word in ("events.run", "events.sleep", "job.position", "#job.nodes", "job.me.port"):
        assert word in app
