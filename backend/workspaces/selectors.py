from django.db.models import QuerySet
from django.http import Http404

from accounts.models import User

from .models import Workspace


def workspace_list(*, user: User) -> QuerySet[Workspace]:
    qs = Workspace.objects.prefetch_related("files").select_related("owner")
    return qs if user.sees_everything else qs.filter(owner=user)


def workspace_get(*, user: User, workspace_id: int) -> Workspace:
    """404 (not 403) for other students' workspaces: their existence is not our business."""
    try:
        return workspace_list(user=user).get(id=workspace_id)
    except Workspace.DoesNotExist as exc:
        raise Http404("no such workspace") from exc
