from django.contrib import admin

from .models import Assignment, GradeOverride, Submission


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ("slug", "course", "title", "deadline", "published", "updated_at")
    list_filter = ("course", "published")


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ("id", "assignment", "student", "created_at", "status", "score", "final_score")
    list_filter = ("status", "assignment__course")
    # Immutable once created: the admin shows submissions, it does not edit them.
    readonly_fields = [f.name for f in Submission._meta.fields]


@admin.register(GradeOverride)
class GradeOverrideAdmin(admin.ModelAdmin):
    list_display = ("assignment", "student", "score", "by", "at")
