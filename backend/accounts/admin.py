from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from .models import User


@admin.register(User)
class SplayUserAdmin(UserAdmin):
    list_display = ("username", "role", "is_staff", "is_active", "last_login")
    list_filter = ("role", "is_staff", "is_active")
    fieldsets = (*UserAdmin.fieldsets, ("SplayLab", {"fields": ("role",)}))
    add_fieldsets = (*UserAdmin.add_fieldsets, ("SplayLab", {"fields": ("role",)}))
