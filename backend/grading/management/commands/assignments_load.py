from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from courses.models import Course
from grading.services import assignment_load_from_folder
from lib.errors import ApplicationError


class Command(BaseCommand):
    help = "Load assignment folders (docs/grading.md) into a course: create, or update by slug."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", type=Path, metavar="PATH")
        parser.add_argument("--course", required=True, help="the course's slug")

    def handle(self, *args: object, paths: list[Path], course: str, **options: object) -> None:
        try:
            target = Course.objects.get(slug=course)
        except Course.DoesNotExist as exc:
            raise CommandError(f"no course with slug {course!r}") from exc
        failed = 0
        for path in paths:
            try:
                assignment, created = assignment_load_from_folder(course=target, path=path)
            except ApplicationError as exc:
                self.stderr.write(exc.message)  # the grader names the folder and file
                failed += 1
                continue
            state = "published" if assignment.published else "not published"
            self.stdout.write(f"{'created' if created else 'updated'} {target.slug}/{assignment.slug}: "
                              f"{assignment.title} ({state})")
        if failed:
            raise CommandError(f"{failed} of {len(paths)} folders not loaded")
