"""daemons.services.daemons_mark_unseen (beat task daemons_sweep, every second)."""
from datetime import timedelta

from django.utils import timezone

from daemons.models import Daemon
from daemons.services import daemons_mark_unseen
from daemons.tests.factories import daemon_make
from jobs.models import Job, JobInstance
from jobs.tests.factories import instance_make, job_make


def test_silent_daemons_become_unseen_and_lose_their_instances(student, settings) -> None:
    settings.SPLAYLAB_DAEMON_UNSEEN_AFTER = 30
    now = timezone.now()
    silent, _ = daemon_make("lab-1", state=Daemon.State.OFFLINE, last_contact=now - timedelta(seconds=31))
    alive, _ = daemon_make("lab-2", last_contact=now - timedelta(seconds=5))
    job = job_make(student, state=Job.State.RUNNING, nodes=2)
    lost = instance_make(job, 1, silent)
    ok = instance_make(job, 2, alive)
    done = instance_make(job_make(student, state=Job.State.ENDED, nodes=1), 1, silent,
                         state=JobInstance.State.ENDED)

    assert daemons_mark_unseen() == [silent.id]
    silent.refresh_from_db()
    alive.refresh_from_db()
    assert (silent.state, alive.state) == (Daemon.State.UNSEEN, Daemon.State.ONLINE)
    for inst in (lost, ok, done):
        inst.refresh_from_db()
    assert (lost.state, lost.exit_reason) == ("LOST", "daemon lab-1 unseen for more than 30 s")
    assert (ok.state, done.state) == ("RUNNING", "ENDED")
    job.refresh_from_db()
    assert job.state == Job.State.RUNNING  # node 2 still runs
    assert daemons_mark_unseen() == []  # already UNSEEN


def test_job_finishes_when_its_last_instances_are_lost(student) -> None:
    daemon, _ = daemon_make(last_contact=timezone.now() - timedelta(minutes=5))
    job = job_make(student, state=Job.State.RUNNING, nodes=2)
    instance_make(job, 1, daemon, state=JobInstance.State.ENDED)
    instance_make(job, 2, daemon)
    daemons_mark_unseen()
    job.refresh_from_db()
    assert job.state == Job.State.ENDED
    assert job.reason.startswith("ended; 1 of 2 instances lost: node 2: daemon lab-1 unseen")
