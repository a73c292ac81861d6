from django.conf import settings
from django.db import models


class Workspace(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                              related_name="workspaces")
    name = models.CharField(max_length=100)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["owner", "name"], name="workspace_unique")]

    def __str__(self) -> str:
        return f"{self.owner}/{self.name}"


class WorkspaceFile(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="files")
    path = models.CharField(max_length=200)
    content = models.TextField(blank=True)

    class Meta:
        ordering = ["path"]
        constraints = [models.UniqueConstraint(fields=["workspace", "path"],
                                               name="workspace_file_unique")]
