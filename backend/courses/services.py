"""seed_demo: the demo course, its two personas and the student's first app (idempotent)."""
from dataclasses import dataclass

from django.db import transaction

from accounts.models import User
from workspaces.models import Workspace
from workspaces.services import workspace_files_replace

from .models import Course, Membership

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
    course, _ = Course.objects.get_or_create(
        slug="distributed-systems-demo", defaults={"name": "Distributed Systems (demo)"})
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
    return DemoSeed(course=course, teacher=teacher, student=student, workspace=workspace)


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
