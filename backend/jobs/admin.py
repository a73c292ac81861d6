from django.contrib import admin

from .models import Job, JobInstance


class JobInstanceInline(admin.TabularInline):
    model = JobInstance
    extra = 0
    readonly_fields = ("node", "daemon", "port", "state", "exit_reason", "exit_code")


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "owner", "state", "nodes", "duration", "created_at")
    list_filter = ("state",)
    search_fields = ("name", "owner__username")
    inlines = [JobInstanceInline]
