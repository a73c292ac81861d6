from django.core.management.base import BaseCommand

from courses.services import demo_seed
from scenarios.builtin import small_scenarios_ensure


class Command(BaseCommand):
    help = ("Create the demo course, teacher/teacher-demo, student/student-demo and the library's "
            "small built-in scenarios (idempotent).")

    def handle(self, *args: object, **options: object) -> None:
        seed = demo_seed()
        small = small_scenarios_ensure(seed.teacher)
        self.stdout.write(f"course {seed.course.name!r}: teacher={seed.teacher.username} "
                          f"student={seed.student.username} workspace={seed.workspace.id} "
                          f"small scenarios={len(small)}")
