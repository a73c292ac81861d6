from django.core.management.base import BaseCommand

from courses.services import demo_seed


class Command(BaseCommand):
    help = "Create the demo course, teacher/teacher-demo, student/student-demo (idempotent)."

    def handle(self, *args: object, **options: object) -> None:
        seed = demo_seed()
        self.stdout.write(f"course {seed.course.name!r}: teacher={seed.teacher.username} "
                          f"student={seed.student.username} workspace={seed.workspace.id}")
