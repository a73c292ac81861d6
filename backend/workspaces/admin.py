from django.contrib import admin

from .models import Workspace, WorkspaceFile


class WorkspaceFileInline(admin.StackedInline):
    model = WorkspaceFile
    extra = 0


@admin.register(Workspace)
class WorkspaceAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "updated_at")
    inlines = [WorkspaceFileInline]
