"""ApplicationError: what services raise when a request is well-formed but not allowed now
(e.g. stopping an ended job). The DRF handler turns it into 400/409 with {"detail": ...}."""
from typing import Any

from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


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
    return drf_exception_handler(exc, context)
