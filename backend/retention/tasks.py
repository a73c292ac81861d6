"""Beat: the retention sweep (services.retention_sweep), every SPLAYLAB_RETENTION_SWEEP seconds."""
from celery import shared_task

from .services import retention_sweep as sweep


@shared_task(name="retention.tasks.retention_sweep")
def retention_sweep() -> dict:
    return sweep().as_dict()
