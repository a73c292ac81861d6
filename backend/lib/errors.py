"""ApplicationError: what services raise when a request is well-formed but not allowed now
(e.g. stopping an ended job). The DRF handler turns it into 400/409 with {"detail": ...}.

A unique constraint that a check before the write missed (two requests racing) is a 409 too,
never a 500: the constraint's name says which."""
import logging
from typing import Any

from django.db import IntegrityError
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

log = logging.getLogger(__name__)


class ApplicationError(Exception):
    def __init__(self, message: str, status_code: int = status.HTTP_400_BAD_REQUEST,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status_code = status_code
        self.headers = headers or {}  # e.g. Retry-After on a 429


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ApplicationError):
        return Response({"detail": exc.message}, status=exc.status_code, headers=exc.headers)
    if isinstance(exc, IntegrityError):
        log.warning("integrity error answered 409 (%s): %s", context.get("view"), exc)
        set_rollback()
        return Response({"detail": f"conflicts with data that exists already ({str(exc).splitlines()[0]})"},
                        status=status.HTTP_409_CONFLICT)
    return drf_exception_handler(exc, context)
