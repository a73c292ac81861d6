import asyncio
from collections.abc import Callable

from django.db import connections

from accounts.models import User
from daemons.models import Daemon
from jobs.models import Job, JobInstance

HELLO = "print('hello from node ' .. job.position)\n"


def job_make(owner: User, *, state: str = Job.State.QUEUED, nodes: int = 2, duration: int = 30,
             code: str = HELLO, **extra: object) -> Job:
    return Job.objects.create(owner=owner, code=code, nodes=nodes, duration=duration, state=state,
                              **extra)


def instance_make(job: Job, node: int | None, daemon: Daemon | None = None, *,
                  state: str = JobInstance.State.RUNNING, port: int | None = None,
                  ip: str | None = None) -> JobInstance:
    return JobInstance.objects.create(job=job, node=node, daemon=daemon, state=state, ip=ip,
                                      port=port if port is not None else 20000 + (node or 0))


def in_worker_thread(task: Callable[..., object], *args: object) -> "asyncio.Future[object]":
    """A Celery task's body in a worker thread, as in celery (sync code, its own DB
    connection, closed afterwards), while the test's event loop plays the daemons."""
    def run() -> object:
        try:
            return task(*args)
        finally:
            connections.close_all()
    return asyncio.get_running_loop().run_in_executor(None, run)
