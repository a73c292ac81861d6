"""View-level gates (DRF permission classes). What a user may see of each object is decided
by the apps' selectors with courses.selectors (the course's role counts, not User.role)."""
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView


class ManagesDaemons(BasePermission):
    """Site operators and instructors of some course (who see their courses' daemons only,
    daemons.selectors); everyone else signed in gets 403."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and user.manages_daemons)


class OperatorWrites(ManagesDaemons):
    """Whoever manages daemons reads; only site operators write (the blacklist reaches every
    daemon of every course)."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        if not super().has_permission(request, view):
            return False
        user = request.user
        return request.method in SAFE_METHODS or bool(user.is_superuser or user.is_staff)
