"""For bench/web_cpu.py --handler django-asgi: the web entry as it was before HTTP went through
Django's WSGI handler (splaylab/asgi.py), Django's own ASGI handler serving HTTP, to compare."""
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "splaylab.settings")
application = get_asgi_application()
