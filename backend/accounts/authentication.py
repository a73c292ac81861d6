"""DRF's token authentication (same header, same answers), its lookup one plain SQL statement:
building the ORM query for it was a tenth of the web tier's CPU at class load (py-spy,
bench/class_load.py), and it runs on every API request."""
from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token

from .models import User

_USER_BY_TOKEN = (f'SELECT u.* FROM "{User._meta.db_table}" u '
                  f'JOIN "{Token._meta.db_table}" t ON t.user_id = u.id WHERE t.key = %s')


class PlainTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[User, Token]:
        user = next(iter(User.objects.raw(_USER_BY_TOKEN, [key])), None)
        if user is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return user, Token(key=key, user=user)
