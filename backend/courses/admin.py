from django.contrib import admin

from .models import Course, Membership


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0


@admin.register(Course)
class CourseAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "join_code")
    filter_horizontal = ("daemons",)
    prepopulated_fields = {"slug": ("name",)}
    inlines = [MembershipInline]
