from typing import TypedDict

from django.db import IntegrityError, transaction

from accounts.models import User
from lib.errors import ApplicationError

from .models import Workspace, WorkspaceFile

MAX_FILES = 50
MAX_TOTAL_BYTES = 1024 * 1024
MAX_WORKSPACES = 100  # per user

STARTER_APP = """\
events.run(function()
  print(("node %d of %d on port %d"):format(job.position, #job.nodes, job.me.port))
end)
"""


class FileDict(TypedDict):
    path: str
    content: str


def _path_check(path: str) -> None:
    parts = path.split("/")
    if not path or path.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise ApplicationError(f"invalid file path {path!r}")


@transaction.atomic
def workspace_files_replace(*, workspace: Workspace, files: list[FileDict],
                            name: str | None = None) -> Workspace:
    """PUT semantics: the given files become the whole workspace."""
    if len(files) > MAX_FILES:
        raise ApplicationError(f"at most {MAX_FILES} files per workspace")
    paths = [f["path"] for f in files]
    for path in paths:
        _path_check(path)
    if len(set(paths)) != len(paths):
        raise ApplicationError("duplicate file paths")
    if sum(len(f["content"].encode("utf-8")) for f in files) > MAX_TOTAL_BYTES:
        raise ApplicationError("workspace larger than 1 MB")
    if name is not None and name != workspace.name:
        if Workspace.objects.filter(owner_id=workspace.owner_id, name=name).exclude(id=workspace.id).exists():
            raise ApplicationError(f"you already have a workspace named {name!r}", status_code=409)
        workspace.name = name
    try:
        with transaction.atomic():  # a rename racing another: the constraint decides, a 409
            workspace.save()  # bumps updated_at; the row lock orders saves of one workspace
    except IntegrityError:
        raise ApplicationError(f"you already have a workspace named {name!r}", status_code=409) from None
    # Only what changed is written (an editor's save changes one file, not fifty).
    wanted = {f["path"]: f["content"] for f in files}
    existing = {f.path: f for f in WorkspaceFile.objects.filter(workspace=workspace)}
    WorkspaceFile.objects.filter(id__in=[f.id for path, f in existing.items() if path not in wanted]).delete()
    changed = [f for path, f in existing.items() if path in wanted and f.content != wanted[path]]
    for f in changed:
        f.content = wanted[f.path]
    WorkspaceFile.objects.bulk_update(changed, ["content"])
    WorkspaceFile.objects.bulk_create(
        WorkspaceFile(workspace=workspace, path=path, content=content) for path, content in wanted.items()
        if path not in existing)
    return workspace


def workspace_default_ensure(*, user: User) -> Workspace:
    """A user gets a default workspace with a starter app.lua the first time they look."""
    workspace, created = Workspace.objects.get_or_create(owner=user, name="default")
    if created:
        workspace_files_replace(workspace=workspace,
                                files=[{"path": "app.lua", "content": STARTER_APP}])
    return workspace


def workspace_get_or_create(*, user: User, name: str, files: list[FileDict]) -> tuple[Workspace, bool]:
    """The user's workspace called `name`, created with `files` if there is none yet (an
    existing one is returned as it is: its files are the user's). The IDE keeps one workspace
    per assignment this way, started from the assignment's starter. The user's default
    workspace is made first if missing: it stays their first (the workspace page's)."""
    if name != "default":
        workspace_default_ensure(user=user)
    with transaction.atomic():
        # One creation at a time per user: the count below cannot be raced.
        User.objects.select_for_update().filter(id=user.id).first()
        existing = Workspace.objects.filter(owner=user, name=name).first()
        if existing is not None:
            return existing, False
        if Workspace.objects.filter(owner=user).count() >= MAX_WORKSPACES:
            raise ApplicationError(f"at most {MAX_WORKSPACES} workspaces per user")
        workspace = Workspace.objects.create(owner=user, name=name)
        workspace_files_replace(workspace=workspace, files=files)
    return workspace, True
