"""Writes on courses: creation, enrolment by join code, settings; and seed_demo."""
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import IntegrityError, transaction
from rest_framework.exceptions import PermissionDenied, ValidationError

from accounts.models import User
from daemons.models import Daemon
from lib.errors import ApplicationError
from workspaces.models import Workspace
from workspaces.services import workspace_files_replace

from .models import Course, Membership, join_code_generate, join_code_normalize

COURSE_SETTINGS = ("name", "max_nodes_per_job", "max_concurrent_jobs", "minutes_per_day_per_student",
                   "late_penalty_percent", "max_late_days", "retention_days", "retention_max_mb_per_job")


def course_create(*, user: User, name: str, slug: str) -> Course:
    """Instructors (by their account's role) create courses and become their instructor."""
    if not (user.is_superuser or user.role == User.Role.INSTRUCTOR):
        raise PermissionDenied("only instructors create courses")
    with transaction.atomic():
        if Course.objects.filter(slug=slug).exists():
            raise ValidationError({"slug": [f"a course named {slug!r} exists already"]})
        course = Course.objects.create(name=name, slug=slug)
        Membership.objects.create(user=user, course=course, role=Membership.Role.INSTRUCTOR)
    return course


def course_join(*, user: User, code: str) -> tuple[Membership, bool]:
    """Enrol `user` as a student of the course whose join code is `code` (any case, spaces and
    dashes ignored). Already a member: their membership (and role) stays as it is."""
    normalized = join_code_normalize(code)
    course = Course.objects.filter(join_code=normalized).first() if normalized else None
    if course is None:
        raise ApplicationError(f"no course with join code {code.strip()!r}")
    membership, created = Membership.objects.get_or_create(
        user=user, course=course, defaults={"role": Membership.Role.STUDENT})
    return membership, created


def course_join_code_regenerate(*, course: Course) -> str:
    """A new code; the old one stops working at once (students already in stay in)."""
    for _ in range(10):
        code = join_code_generate()
        try:
            with transaction.atomic():
                Course.objects.filter(id=course.id).update(join_code=code)
        except IntegrityError:  # taken by another course: 1 chance in 31^8 / courses
            continue
        course.join_code = code
        return code
    raise ApplicationError("could not find a free join code; try again", status_code=503)


def course_update(*, course: Course, daemons: Iterable[int] | None = None, **fields: Any) -> Course:
    """Instructors' settings: name, quotas, late policy, retention and the course's daemons (ids)."""
    unknown = set(fields) - set(COURSE_SETTINGS)
    if unknown:
        raise ApplicationError(f"not a course setting: {', '.join(sorted(unknown))}")
    with transaction.atomic():
        for key, value in fields.items():
            setattr(course, key, value)
        course.full_clean(exclude=["slug", "join_code"])
        course.save()
        if daemons is not None:
            ids = sorted(set(daemons))
            found = list(Daemon.objects.filter(id__in=ids))
            if len(found) != len(ids):
                missing = sorted(set(ids) - {d.id for d in found})
                raise ValidationError({"daemons": [f"no daemon with id {', '.join(map(str, missing))}"]})
            course.daemons.set(found)
    return course

DEMO_APP = """\
-- Hello from every node: job.position is this node's number, job.nodes the whole list.
events.run(function()
  print(("hello from node %d of %d, listening on port %d")
    :format(job.position, #job.nodes, job.me.port))
  for i = 1, 5 do
    events.sleep(1)
    print(("node %d tick %d at %.2f"):format(job.position, i, misc.time()))
  end
  print(("node %d says goodbye"):format(job.position))
  events.exit()
end)
"""


@dataclass(frozen=True)
class DemoSeed:
    course: Course
    teacher: User
    student: User
    workspace: Workspace


def _user_ensure(username: str, password: str, role: str, **extra: object) -> User:
    user, created = User.objects.get_or_create(username=username, defaults={"role": role, **extra})
    if created or not user.check_password(password):
        user.set_password(password)
    user.role = role
    for key, value in extra.items():
        setattr(user, key, value)
    user.save()
    return user


@transaction.atomic
def demo_seed() -> DemoSeed:
    """seed_demo: the demo course, its two personas and the student's first app (idempotent)."""
    # A sandbox to try the service in: quotas far above a real course's (set per course)
    course, _ = Course.objects.get_or_create(
        slug="distributed-systems-demo", defaults={"name": "Distributed Systems (demo)", "max_nodes_per_job": 1000,
                                                   "max_concurrent_jobs": 20, "minutes_per_day_per_student": 24 * 60})
    teacher = _user_ensure("teacher", "teacher-demo", User.Role.INSTRUCTOR, is_staff=True)
    student = _user_ensure("student", "student-demo", User.Role.STUDENT)
    Membership.objects.update_or_create(user=teacher, course=course,
                                        defaults={"role": Membership.Role.INSTRUCTOR})
    Membership.objects.update_or_create(user=student, course=course,
                                        defaults={"role": Membership.Role.STUDENT})
    workspace, created = Workspace.objects.get_or_create(owner=student, name="default")
    if created or not workspace.files.exists():
        workspace_files_replace(workspace=workspace, files=[{"path": "app.lua", "content": DEMO_APP}])
    _demo_scenarios_ensure(teacher)
    _demo_assignments_ensure(course)
    return DemoSeed(course=course, teacher=teacher, student=student, workspace=workspace)


ASSIGNMENTS = Path(__file__).resolve().parents[2] / "assignments"


def _demo_assignments_ensure(course: Course) -> None:
    """Every graded assignment of assignments/ (the folders with an assignment.yaml), in the demo
    course: loaded again on every seed (the folder is the source of truth), published when new."""
    from grading.services import assignment_load_from_folder

    for spec in sorted(ASSIGNMENTS.glob("*/assignment.yaml")):
        assignment, created = assignment_load_from_folder(course=course, path=spec.parent)
        if created:
            assignment.published = True
            assignment.save(update_fields=["published"])


# The library's first scenarios (docs/churn.md): the SPLAY paper's figure 4 and a massive failure.
DEMO_SCENARIOS = {
    "figure 4 (SPLAY paper)": ("Join, stabilise, grow, churn at constant population, a massive failure, "
                               "growth under churn, everyone leaves.",
                               "at 30s join 100\n"
                               "from 5m to 10m inc 100\n"
                               "from 15m to 20m const churn 50%\n"
                               "at 25m leave 50%\n"
                               "from 30m to 35m inc 100 churn 150%\n"
                               "at 40m leave 100%\n"
                               "at 41m stop\n"),
    "massive failure": ("Half of the nodes fail at once, then the survivors must recover.",
                        "at 1s join 60\nat 90s leave 50%\nat 200s stop\n"),
}


def _demo_scenarios_ensure(owner: User) -> None:
    from scenarios.models import Scenario

    for name, (description, text) in DEMO_SCENARIOS.items():
        Scenario.objects.get_or_create(name=name, defaults={"owner": owner, "text": text,
                                                            "description": description})
