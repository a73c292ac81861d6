"""Celery app: broker is REDIS_URL; beat runs the housekeeping tasks listed below."""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "splaylab.settings")

app = Celery("splaylab")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

app.conf.beat_schedule = {
    # Silent daemons: unreachable after SPLAYLAB_DAEMON_DEAD_AFTER (keep-population nodes
    # replaced), unseen after SPLAYLAB_DAEMON_UNSEEN_AFTER (SPLAY's `unseen` process).
    "daemons-sweep": {"task": "daemons.tasks.daemons_sweep", "schedule": 1.0},
    # Safety net when a daemon does not end a job at its duration.
    "jobs-expire": {"task": "jobs.tasks.jobs_expire", "schedule": 5.0},
    # LTI: the used-nonce table only matters while an id_token could still verify (minutes).
    "lti-nonces-prune": {"task": "lti.tasks.nonces_prune", "schedule": 86400.0},
    # LTI: grades held while hidden checks were not released go to the LMS once the deadline passed.
    "lti-grades-release": {"task": "lti.tasks.grades_release", "schedule": 300.0},
    # Retention: measure what jobs store, prune what their course's policy no longer keeps
    # (bounded batches; backend/retention/).
    "retention-sweep": {"task": "retention.tasks.retention_sweep",
                        "schedule": float(os.environ.get("SPLAYLAB_RETENTION_SWEEP", "600"))},
}
