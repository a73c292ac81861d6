"""Reads on workspaces. The owner reads and writes; the instructors and TAs of a course the
owner is a student of read (courses.selectors.supervised_q); anyone else gets 404."""
from django.db.models import QuerySet, prefetch_related_objects
from django.http import Http404
from rest_framework.exceptions import PermissionDenied

from accounts.models import User
from courses.selectors import supervised_q, supervises

from .models import Workspace


def workspace_list(*, user: User) -> QuerySet[Workspace]:
    qs = Workspace.objects.prefetch_related("files").select_related("owner")
    visible = supervised_q(user=user)
    return qs if visible is None else qs.filter(visible)


def workspace_get(*, user: User, workspace_id: int) -> Workspace:
    """404 (not 403) for workspaces the user may not see: their existence is not our business.
    Fetched by id, then judged by workspace_list's rule (as jobs.selectors.job_get)."""
    workspace = Workspace.objects.select_related("owner").filter(id=workspace_id).first()
    if workspace is None or not supervises(user=user, owner_id=workspace.owner_id):
        raise Http404("no such workspace")
    prefetch_related_objects([workspace], "files")
    return workspace


def workspace_get_for_write(*, user: User, workspace_id: int) -> Workspace:
    """The owner's only: staff who may read it get 403 (a student's code is not edited under
    them); others 404 as workspace_get."""
    workspace = workspace_get(user=user, workspace_id=workspace_id)
    if workspace.owner_id != user.id:
        raise PermissionDenied("only its owner may change a workspace")
    return workspace
