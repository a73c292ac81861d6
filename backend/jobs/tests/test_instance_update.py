"""jobs.services.instance_update and the job end rules."""
import pytest

from daemons.tests.factories import daemon_make
from jobs.models import Job, JobInstance
from jobs.services import instance_update
from jobs.tests.factories import instance_make, job_make

S = JobInstance.State


@pytest.fixture
def running(student):
    daemon, _ = daemon_make()
    job = job_make(student, state=Job.State.RUNNING, nodes=3)
    for node in (1, 2, 3):
        instance_make(job, node, daemon)
    return job, daemon


def _report(job: Job, daemon, node: int, state: str, reason: str = "", code: int | None = 0) -> bool:
    return instance_update(daemon_id=daemon.id, job_id=job.id, node=node, state=state,
                           exit_code=code, reason=reason)


def test_job_ends_when_every_instance_ended(running) -> None:
    job, daemon = running
    for node in (1, 2, 3):
        _report(job, daemon, node, S.ENDED, "normal end")
    job.refresh_from_db()
    assert (job.state, job.reason) == (Job.State.ENDED, "all 3 instances ended")
    assert job.ended_at is not None


def test_job_stays_running_while_one_instance_runs(running) -> None:
    job, daemon = running
    _report(job, daemon, 1, S.ENDED)
    _report(job, daemon, 2, S.FAILED, "boom", 1)
    job.refresh_from_db()
    assert job.state == Job.State.RUNNING


def test_some_failures_end_the_job_with_the_first_failure(running) -> None:
    job, daemon = running
    _report(job, daemon, 3, S.FAILED, "app.lua:9: oops", 1)
    _report(job, daemon, 1, S.ENDED)
    _report(job, daemon, 2, S.ENDED)
    job.refresh_from_db()
    assert job.state == Job.State.ENDED
    assert job.reason == "ended; 1 of 3 instances failed: node 3: app.lua:9: oops"
    assert job.error_line == 9


def test_all_failed_is_failed_with_the_first_reason(running) -> None:
    job, daemon = running
    _report(job, daemon, 2, S.FAILED, "out of memory", 4)
    _report(job, daemon, 1, S.FAILED, "killed: CPU limit", -9)
    _report(job, daemon, 3, S.FAILED, "out of memory", 4)
    job.refresh_from_db()
    assert job.state == Job.State.FAILED
    assert job.reason == "all 3 instances failed; node 1: killed: CPU limit"


def test_terminal_instances_never_change(running) -> None:
    job, daemon = running
    assert _report(job, daemon, 1, S.ENDED)
    assert not _report(job, daemon, 1, S.RUNNING)
    assert not _report(job, daemon, 1, S.FAILED, "late")
    assert job.instances.get(node=1).state == S.ENDED


def test_another_daemon_cannot_report_for_an_instance(running) -> None:
    job, _ = running
    intruder, _ = daemon_make("lab-9")
    assert not _report(job, intruder, 1, S.FAILED)
    assert job.instances.get(node=1).state == S.RUNNING


def test_a_killed_job_is_not_reopened_by_late_reports(student) -> None:
    daemon, _ = daemon_make()
    job = job_make(student, state=Job.State.KILLED, nodes=1, reason="stopped by student")
    instance_make(job, 1, daemon)
    _report(job, daemon, 1, S.KILLED, "stopped")
    job.refresh_from_db()
    assert (job.state, job.reason) == (Job.State.KILLED, "stopped by student")


def test_job_whose_instances_were_all_lost_fails_saying_so() -> None:
    from jobs.services import job_outcome
    lost = [JobInstance(node=n, state=JobInstance.State.LOST, exit_reason="daemon lab-2 unseen")
            for n in (1, 2)]
    outcome = job_outcome(lost, "app.lua")
    assert (outcome.state, outcome.reason) == ("FAILED", "all 2 instances lost; node 1: daemon lab-2 unseen")
    mixed = [JobInstance(node=1, state=JobInstance.State.FAILED, exit_reason="app.lua:3: boom"),
             JobInstance(node=2, state=JobInstance.State.LOST, exit_reason="daemon lab-2 unseen"),
             JobInstance(node=3, state=JobInstance.State.ENDED, exit_reason="ended normally")]
    outcome = job_outcome(mixed, "app.lua")
    assert outcome.reason == "ended; 2 of 3 instances failed or lost: node 1: app.lua:3: boom"
    assert outcome.error_line == 3


def test_a_lost_instance_whose_daemon_reports_its_end_late_takes_that_end_and_the_job_its_outcome(running) -> None:
    """Nothing misreported (issue 20): a daemon unseen too long has its nodes judged LOST and
    the job FAILED; when it comes back, its journal's exits replace the verdict."""
    from daemons.services import _lose
    job, daemon = running
    _lose(JobInstance.objects.filter(job=job), "daemon lab-1 unseen for more than 120 s")
    from jobs.services import job_finish_if_done
    job_finish_if_done(job.id)
    job.refresh_from_db()
    assert job.state == Job.State.FAILED and job.reason.startswith("all 3 instances lost")
    ended_at = job.ended_at
    assert not _report(job, daemon_make("lab-9")[0], 1, S.ENDED)  # only its own daemon may
    for node in (1, 2):
        assert _report(job, daemon, node, S.ENDED, "ended normally")
    job.refresh_from_db()
    assert (job.state, job.reason) == (Job.State.ENDED, "ended; 1 of 3 instances lost: node 3: "
                                                        "daemon lab-1 unseen for more than 120 s")
    assert _report(job, daemon, 3, S.FAILED, "app.lua:4: boom", 1)
    job.refresh_from_db()
    assert (job.state, job.reason, job.error_line) == (Job.State.ENDED, "ended; 1 of 3 instances failed: "
                                                                        "node 3: app.lua:4: boom", 4)
    assert job.ended_at == ended_at
    assert not _report(job, daemon, 3, S.ENDED)  # its own end is final


def test_a_stopped_job_stays_killed_when_lost_instances_report_late(student) -> None:
    daemon, _ = daemon_make()
    job = job_make(student, state=Job.State.KILLED, nodes=1, reason="stopped by student")
    instance_make(job, 1, daemon, state=S.LOST)
    assert _report(job, daemon, 1, S.KILLED, "stopped")
    job.refresh_from_db()
    assert (job.state, job.reason) == (Job.State.KILLED, "stopped by student")
    assert job.instances.get(node=1).state == S.KILLED
