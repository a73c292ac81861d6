"""manage.py retention_sweep: what beat runs, by hand (measure, then prune by age and size)."""
import json

from django.core.management.base import BaseCommand

from retention.services import retention_sweep


class Command(BaseCommand):
    help = "Measure jobs' stored bytes and prune what the retention policies no longer keep."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--max-rows", type=int, default=None,
                            help="delete at most this many rows (default SPLAYLAB_RETENTION_SWEEP_ROWS)")

    def handle(self, *args, max_rows: int | None = None, **options) -> None:
        self.stdout.write(json.dumps(retention_sweep(max_rows=max_rows).as_dict()))
