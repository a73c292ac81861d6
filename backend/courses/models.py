import secrets

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

# No 0/O, 1/I/L: a code read aloud or copied from a slide is typed right the first time.
JOIN_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
JOIN_CODE_LENGTH = 8


def join_code_generate() -> str:
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))


def join_code_normalize(code: str) -> str:
    """What a student types: any case, spaces or dashes (ABCD-EFGH) are fine."""
    return "".join(ch for ch in code.upper() if ch not in " -\t")


class Course(models.Model):
    name = models.CharField(max_length=200)
    slug = models.SlugField(unique=True)
    join_code = models.CharField(max_length=16, unique=True, default=join_code_generate,
                                 help_text="students join with it; instructors may regenerate it")
    # Quotas (per student): stored and shown; jobs.services does not enforce them yet.
    max_nodes_per_job = models.PositiveIntegerField(default=200)
    max_concurrent_jobs = models.PositiveIntegerField(default=3)
    minutes_per_day_per_student = models.PositiveIntegerField(default=120)
    # Late policy: each started day after an assignment's deadline costs late_penalty_percent
    # of the score; after max_late_days, students' submissions are refused.
    late_penalty_percent = models.PositiveSmallIntegerField(
        default=10, validators=[MaxValueValidator(100)])
    max_late_days = models.PositiveSmallIntegerField(default=3, validators=[MinValueValidator(0)])
    # The daemons this course's jobs may use (none: any). Scheduling does not read it yet.
    daemons = models.ManyToManyField("daemons.Daemon", blank=True, related_name="courses")
    # Retention (retention/, docs/decisions.md "Retention"): a student's job keeps its log lines,
    # metric chunks and trace/probe chunks this many days after it ended, and at most this many
    # MB of them (the oldest go first); 0 turns the rule off. The job row, its instances and its
    # summaries (metric series, trace summary) are never pruned.
    retention_days = models.PositiveIntegerField(
        default=30, validators=[MaxValueValidator(3650)],
        help_text="days a job's logs, metrics and traces are kept after it ended (0: no age limit)")
    retention_max_mb_per_job = models.PositiveIntegerField(
        default=100, validators=[MaxValueValidator(100_000)],
        help_text="MB of logs, metrics and traces kept per ended job, oldest pruned first (0: no size limit)")

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    class Role(models.TextChoices):
        STUDENT = "student"
        TA = "ta"
        INSTRUCTOR = "instructor"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="memberships")
    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.STUDENT)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "course"], name="membership_unique")]
