"""manage.py lti_rotate_key: a new tool key signs from now on; the old one stays in the JWKS
until `--retire` (after the grace) unpublishes it. docs/lms.md, "Rotating SplayLab's key"."""
from datetime import timedelta

from django.core.management.base import BaseCommand

from lti.keys import key_retire, key_rotate, tool_key
from lti.models import ToolKey


class Command(BaseCommand):
    help = ("Make a new LTI tool key that signs from now on (the old one stays published), "
            "or with --retire unpublish old keys out of signing for --min-age-hours; --list shows the keys.")

    def add_arguments(self, parser) -> None:
        action = parser.add_mutually_exclusive_group()
        action.add_argument("--retire", action="store_true",
                            help="unpublish the keys no longer signing, once out of signing for --min-age-hours")
        action.add_argument("--list", dest="show", action="store_true", help="list the published keys, change nothing")
        parser.add_argument("--min-age-hours", type=float, default=24.0,
                            help="--retire: how long a key must have been out of signing (default 24: "
                                 "an LMS's cached JWKS has been fetched again)")

    def handle(self, *args, retire: bool = False, show: bool = False, min_age_hours: float = 24.0,
               **options) -> None:
        if retire:
            retired, kept = key_retire(min_age=timedelta(hours=min_age_hours))
            for kid in retired:
                self.stdout.write(f"retired {kid}: no longer in the JWKS")
            for kid in kept:
                self.stdout.write(f"kept {kid}: out of signing for less than {min_age_hours:g} h")
            if not retired and not kept:
                self.stdout.write("no old key to retire")
        elif not show:
            key = key_rotate()
            self.stdout.write(f"new key {key.kid} signs from now on; the old ones stay published until "
                              f"`manage.py lti_rotate_key --retire`")
        else:
            tool_key()
        for key in ToolKey.objects.order_by("-active", "id"):
            self.stdout.write(self._line(key))

    @staticmethod
    def _line(key: ToolKey) -> str:
        if key.active:
            return f"{key.kid}  signing since {key.created_at:%Y-%m-%d %H:%M} UTC"
        until = f"{key.signed_until:%Y-%m-%d %H:%M} UTC" if key.signed_until else "an unknown time"
        return f"{key.kid}  published, signed until {until}"
