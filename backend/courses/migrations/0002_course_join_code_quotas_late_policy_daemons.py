"""join_code (unique: existing courses get one each before the constraint), quotas, late
policy and per-course daemons."""
import django.core.validators
from django.db import migrations, models

import courses.models


def join_codes_fill(apps, schema_editor) -> None:  # type: ignore[no-untyped-def]
    Course = apps.get_model("courses", "Course")
    taken: set[str] = set()
    for course in Course.objects.filter(join_code__isnull=True):
        code = courses.models.join_code_generate()
        while code in taken:
            code = courses.models.join_code_generate()
        taken.add(code)
        course.join_code = code
        course.save(update_fields=["join_code"])


class Migration(migrations.Migration):

    dependencies = [
        ("courses", "0001_initial"),
        ("daemons", "0002_daemon_sandbox"),
    ]

    operations = [
        migrations.AddField(
            model_name="course",
            name="join_code",
            field=models.CharField(max_length=16, null=True),
        ),
        migrations.RunPython(join_codes_fill, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="course",
            name="join_code",
            field=models.CharField(default=courses.models.join_code_generate,
                                   help_text="students join with it; instructors may regenerate it",
                                   max_length=16, unique=True),
        ),
        migrations.AddField(
            model_name="course",
            name="max_nodes_per_job",
            field=models.PositiveIntegerField(default=200),
        ),
        migrations.AddField(
            model_name="course",
            name="max_concurrent_jobs",
            field=models.PositiveIntegerField(default=3),
        ),
        migrations.AddField(
            model_name="course",
            name="minutes_per_day_per_student",
            field=models.PositiveIntegerField(default=120),
        ),
        migrations.AddField(
            model_name="course",
            name="late_penalty_percent",
            field=models.PositiveSmallIntegerField(
                default=10, validators=[django.core.validators.MaxValueValidator(100)]),
        ),
        migrations.AddField(
            model_name="course",
            name="max_late_days",
            field=models.PositiveSmallIntegerField(
                default=3, validators=[django.core.validators.MinValueValidator(0)]),
        ),
        migrations.AddField(
            model_name="course",
            name="daemons",
            field=models.ManyToManyField(blank=True, related_name="courses", to="daemons.daemon"),
        ),
    ]
