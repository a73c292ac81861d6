"""Django admin: a new daemon gets a key, shown once, stored only as a hash."""
import re

from django.test import Client

from accounts.tests.factories import user_make
from daemons.models import Daemon, daemon_key_hash


def test_adding_a_daemon_shows_its_key_once(db) -> None:
    admin = user_make("root", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(admin)
    res = client.post("/admin/daemons/daemon/add/",
                      {"name": "lab-9", "max_instances": 5, "port_lo": 1, "port_hi": 9}, follow=True)
    assert res.status_code == 200
    match = re.search(r"Key for daemon &#x27;lab-9&#x27;: (\S+) ", res.content.decode())
    assert match, res.content.decode()[:2000]
    daemon = Daemon.objects.get(name="lab-9")
    assert daemon.key_hash == daemon_key_hash(match.group(1))
    again = client.get(f"/admin/daemons/daemon/{daemon.id}/change/")
    assert match.group(1) not in again.content.decode()
