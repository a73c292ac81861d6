"""Reads of retention: the policy a job lives under, when its data goes, who may keep it, and
the disk use of a course.

A job belongs to the courses its owner is a student of (the rule of courses.selectors); its
policy is the most generous of theirs (a course's tight rule must not prune work another course
keeps), and the service's (SPLAYLAB_RETENTION_DAYS / _MAX_MB) when there is none: staff's own
jobs, users in no course. 0 in a rule means "no limit" and is the most generous."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Sum

from accounts.models import User
from courses.models import Course, Membership
from jobs.models import Job

from .models import JobRetention

MB = 1024 * 1024


@dataclass(frozen=True)
class RetentionPolicy:
    days: int         # 0: no age limit
    max_mb: int       # 0: no size limit
    source: str       # "course NAME[, NAME]" or "service default", for notes and the page

    @property
    def max_bytes(self) -> int | None:
        return self.max_mb * MB if self.max_mb else None


def _most_generous(values: list[int]) -> int:
    return 0 if 0 in values else max(values)


def owner_policy(*, owner_id: int) -> RetentionPolicy:
    courses = list(Course.objects.filter(memberships__user_id=owner_id,
                                         memberships__role=Membership.Role.STUDENT)
                   .only("name", "retention_days", "retention_max_mb_per_job"))
    if not courses:
        return RetentionPolicy(days=settings.SPLAYLAB_RETENTION_DAYS,
                               max_mb=settings.SPLAYLAB_RETENTION_MAX_MB, source="service default")
    return RetentionPolicy(days=_most_generous([c.retention_days for c in courses]),
                           max_mb=_most_generous([c.retention_max_mb_per_job for c in courses]),
                           source="course " + ", ".join(sorted(c.name for c in courses)))


def job_end(job: Job) -> datetime:
    """When the age rule starts counting: the job's end (its submission for a job that ended
    without ever recording an end, e.g. refused before it ran)."""
    return job.ended_at or job.created_at


def prune_after(job: Job, policy: RetentionPolicy, keep: bool) -> datetime | None:
    """When the age rule will prune the job's data; None: never (kept, no age limit, or the job
    has not ended: the date is only known once it ends)."""
    if keep or not policy.days or job.state not in Job.TERMINAL:
        return None
    return job_end(job) + timedelta(days=policy.days)


def may_keep(*, user: User, job: Job) -> bool:
    """Instructors and TAs of a course the job's owner is a student of, and superusers, mark a
    job "keep"; its owner does not (every student would keep everything)."""
    if user.is_superuser:
        return True
    owner_courses = Membership.objects.filter(user_id=job.owner_id, role=Membership.Role.STUDENT).values("course_id")
    return Membership.objects.filter(user_id=user.id, course_id__in=owner_courses,
                                     role__in=[Membership.Role.INSTRUCTOR, Membership.Role.TA]).exists()


@dataclass(frozen=True)
class JobRetentionView:
    job: Job
    policy: RetentionPolicy
    row: JobRetention | None
    may_keep: bool

    @property
    def keep(self) -> bool:
        return bool(self.row and self.row.keep)

    @property
    def prune_after(self) -> datetime | None:
        if self.row is not None and self.row.pruned_all:
            return None
        return prune_after(self.job, self.policy, self.keep)


def job_retention(*, user: User, job: Job) -> JobRetentionView:
    """`job` must be one the user may see (jobs.selectors.job_get)."""
    return JobRetentionView(job=job, policy=owner_policy(owner_id=job.owner_id),
                            row=JobRetention.objects.filter(job_id=job.id).first(),
                            may_keep=may_keep(user=user, job=job))


@dataclass(frozen=True)
class DiskUse:
    log_bytes: int
    metric_bytes: int
    trace_bytes: int
    jobs: int
    measured_at: datetime | None

    @property
    def total_bytes(self) -> int:
        return self.log_bytes + self.metric_bytes + self.trace_bytes


def course_disk_use(*, course: Course) -> DiskUse:
    """What the course's students' jobs store, as the last sweeps measured it (one aggregate
    over the per-job counts: cheap whatever the size of the log tables)."""
    students = Membership.objects.filter(course=course, role=Membership.Role.STUDENT).values("user_id")
    sums = JobRetention.objects.filter(job__owner_id__in=students).aggregate(
        log=Sum("log_bytes"), metric=Sum("metric_bytes"), trace=Sum("trace_bytes"))
    jobs = Job.objects.filter(owner_id__in=students).count()
    latest = (JobRetention.objects.filter(job__owner_id__in=students, measured_at__isnull=False)
              .order_by("-measured_at").values_list("measured_at", flat=True).first())
    return DiskUse(log_bytes=sums["log"] or 0, metric_bytes=sums["metric"] or 0,
                   trace_bytes=sums["trace"] or 0, jobs=jobs, measured_at=latest)
