from django.apps import AppConfig


class DaemonsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "daemons"
