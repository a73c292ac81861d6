from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.models import User
from accounts.services import user_token_get_or_create


class Command(BaseCommand):
    help = "Print USERNAME's API token (created if needed)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")

    def handle(self, *args: object, username: str, **options: object) -> None:
        try:
            user = User.objects.get(username=username)
        except User.DoesNotExist as exc:
            raise CommandError(f"no user named {username!r}") from exc
        self.stdout.write(user_token_get_or_create(user=user))
