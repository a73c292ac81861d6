"""Celery tasks: take ids, claim rows by conditional update, call services."""
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from daemons.commands import Command, commands_send
from logs.publisher import job_state_publish

from .models import Job, JobInstance
from .scheduling import churn_replace_run, job_schedule_safely, launch_allowance
from .services import instances_terminate, job_finish_if_done


@shared_task(name="jobs.tasks.job_schedule")
def job_schedule(job_id: int) -> None:
    job_schedule_safely(job_id)


@shared_task(name="jobs.tasks.simulation_run")
def simulation_run(job_id: int) -> None:
    """A simulated job, start to end (queue `simulations`: its own worker, one process per core)."""
    from .simulation import simulation_run as run

    run(job_id)


@shared_task(name="jobs.tasks.churn_replace")
def churn_replace(job_id: int, position: int, dead_node: int) -> None:
    churn_replace_run(job_id, position, dead_node)


@shared_task(name="jobs.tasks.job_stop")
def job_stop(job_id: int) -> None:
    """Tell every daemon holding the job's instances to stop; whatever does not confirm is
    marked KILLED anyway (a daemon ends instances at their duration on its own)."""
    job = Job.objects.get(id=job_id)
    reason = job.reason if job.state == Job.State.KILLED else f"duration of {job.duration} s reached"
    daemon_ids = sorted(set(
        JobInstance.objects.filter(job_id=job_id, state__in=list(JobInstance.ACTIVE),
                                   daemon__isnull=False).values_list("daemon_id", flat=True)))
    commands_send([Command(d, {"type": "stop", "job": job_id}) for d in daemon_ids],
                  timeout=settings.SPLAYLAB_REGISTER_TIMEOUT)
    instances_terminate(job_id=job_id, state=JobInstance.State.KILLED, reason=reason)
    job_finish_if_done(job_id)
    # A stopped job was KILLED (and pushed) before its daemons ended its nodes: push it again
    # now its instances have ended, so an open page does not show them RUNNING until a reload.
    job_state_publish(job_id)


@shared_task(name="jobs.tasks.jobs_expire")
def jobs_expire() -> list[int]:
    """Beat: RUNNING jobs past duration + grace (+ the time their daemons may take to launch
    every node, scheduling.launch_allowance) get stopped (claimed once via stop_requested_at)."""
    now = timezone.now()
    grace = settings.SPLAYLAB_JOB_GRACE
    expired = []
    for job in Job.objects.filter(state=Job.State.RUNNING, stop_requested_at__isnull=True,
                                  started_at__isnull=False).only("id", "duration", "started_at"):
        if job.started_at + timedelta(seconds=job.duration + grace) > now:
            continue
        # nodes launched after START (a large job's last ones) count their duration from then
        if job.started_at + timedelta(seconds=job.duration + grace + launch_allowance(job.id)) > now:
            continue
        if Job.objects.filter(id=job.id, stop_requested_at__isnull=True).update(stop_requested_at=now):
            expired.append(job.id)
            job_stop.delay(job.id)
    return expired
