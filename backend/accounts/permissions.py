from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView


class ManagesDaemons(BasePermission):
    """Instructors and staff only; authenticated students get 403."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and user.manages_daemons)
