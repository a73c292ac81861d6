from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from .models import Daemon, daemon_key_generate


def _show_key_once(request: HttpRequest, daemon: Daemon, key: str) -> None:
    messages.warning(request, f"Key for daemon {daemon.name!r}: {key} — copy it into the daemon's "
                              "config now; only its hash is stored, it will not be shown again.")


@admin.register(Daemon)
class DaemonAdmin(admin.ModelAdmin):
    list_display = ("name", "state", "last_contact", "ip", "max_instances", "port_lo", "port_hi",
                    "version")
    list_filter = ("state",)
    fields = ("name", "max_instances", "port_lo", "port_hi", "state", "last_contact", "ip",
              "session", "version")
    readonly_fields = ("state", "last_contact", "ip", "session", "version")
    actions = ["rekey"]

    def save_model(self, request: HttpRequest, obj: Daemon, form: object, change: bool) -> None:
        key = None
        if not change:  # a new daemon gets a key, shown exactly once
            key = daemon_key_generate()
            obj.key_set(key)
        super().save_model(request, obj, form, change)
        if key:
            _show_key_once(request, obj, key)

    @admin.action(description="Generate a new key (the old one stops working)")
    def rekey(self, request: HttpRequest, queryset: QuerySet[Daemon]) -> None:
        for daemon in queryset:
            key = daemon_key_generate()
            daemon.key_set(key)
            daemon.session = ""
            daemon.save(update_fields=["key_hash", "session"])
            _show_key_once(request, daemon, key)
