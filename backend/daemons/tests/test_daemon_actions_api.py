"""Instructors' dashboard API (issue 8): the daemon list's new fields, create, revoke, rotate
a key, drain, and the blacklist."""
from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.layers import DEFAULT_CHANNEL_LAYER, channel_layers

from daemons import actions
from daemons.commands import daemon_group
from daemons.models import BlacklistEntry, Daemon, daemon_key_hash
from daemons.tests.factories import daemon_make
from jobs.tests.factories import instance_make, job_make


class Inbox:
    """A channel-layer channel of our own, standing in for a DaemonConsumer."""

    def __init__(self) -> None:
        self.layer = channel_layers.make_backend(DEFAULT_CHANNEL_LAYER)
        self.name = async_to_sync(self.layer.new_channel)()

    def join(self, group: str) -> None:
        async_to_sync(self.layer.group_add)(group, self.name)

    def receive(self, timeout: float = 3) -> dict[str, Any]:
        async def get() -> dict[str, Any]:
            return await asyncio.wait_for(self.layer.receive(self.name), timeout)
        return async_to_sync(get)()

    def empty(self, timeout: float = 0.3) -> bool:
        try:
            self.receive(timeout)
        except asyncio.TimeoutError:
            return True
        return False


@pytest.fixture
def inbox() -> Iterator[Inbox]:
    box = Inbox()
    yield box
    async_to_sync(box.layer.close_pools)()


def test_list_has_the_owners_and_instructors_fields_and_running_jobs(teacher_client, student) -> None:
    daemon, _ = daemon_make("lab-1", max_instances=8, labels={"room": "B12"}, limits={"max_mem_mb": 256},
                            availability="idle", available=False, unavailable_reason="owner active",
                            load=0.52, rtt_ms=3.1, drained=True)
    daemon_make("lab-2")
    job = job_make(student, name="ring", state="RUNNING")
    instance_make(job, 1, daemon)
    instance_make(job, 2, daemon)
    instance_make(job_make(student), 1, daemon, state="ENDED")
    res = teacher_client.get("/api/daemons/")
    assert res.status_code == 200
    first, second = res.json()
    assert {k: first[k] for k in ("labels", "limits", "availability", "available", "unavailable_reason",
                                  "load", "rtt_ms", "drained", "revoked", "active_instances")} == {
        "labels": {"room": "B12"}, "limits": {"max_mem_mb": 256}, "availability": "idle", "available": False,
        "unavailable_reason": "owner active", "load": 0.52, "rtt_ms": 3.1, "drained": True, "revoked": False,
        "active_instances": 2}
    assert first["running_jobs"] == [{"id": job.id, "name": "ring", "instances": 2}]
    assert first["last_contact"] is not None
    assert (second["name"], second["running_jobs"], second["load"]) == ("lab-2", [], None)


def test_create_returns_the_key_and_a_config_once(teacher_client) -> None:
    res = teacher_client.post("/api/daemons/", {"name": "volunteer-7", "max_instances": 4,
                                                "port_lo": 30000, "port_hi": 30099}, format="json")
    assert res.status_code == 201, res.json()
    body = res.json()
    daemon = Daemon.objects.get(name="volunteer-7")
    assert daemon.key_hash == daemon_key_hash(body["key"])
    assert (body["daemon"]["id"], body["daemon"]["state"], body["daemon"]["ports"]) == (
        daemon.id, "OFFLINE", [30000, 30099])
    assert f'key = "{body["key"]}"' in body["config"]
    assert 'controller = "ws://testserver/ws/daemon/"' in body["config"]
    assert "max_instances = 4" in body["config"] and "ports = [30000, 30099]" in body["config"]
    listed = teacher_client.get("/api/daemons/").json()
    assert body["key"] not in str(listed)


@pytest.mark.parametrize("payload,field", [
    ({"name": "lab-1", "max_instances": 4, "port_lo": 30000, "port_hi": 30099}, "name"),
    ({"name": "bad name", "max_instances": 4, "port_lo": 30000, "port_hi": 30099}, "name"),
    ({"name": "x", "max_instances": 4, "port_lo": 30099, "port_hi": 30000}, "port_hi"),
    ({"name": "x", "max_instances": 10, "port_lo": 30000, "port_hi": 30004}, "max_instances"),
    ({"name": "x", "max_instances": 0, "port_lo": 30000, "port_hi": 30004}, "max_instances"),
])
def test_create_refuses_bad_input_by_field(teacher_client, payload, field) -> None:
    daemon_make("lab-1")
    res = teacher_client.post("/api/daemons/", payload, format="json")
    assert res.status_code == 400 and field in res.json(), res.json()


def test_revoke_refuses_the_connected_daemon_at_once(teacher_client, inbox) -> None:
    daemon, key = daemon_make("lab-1", session="abc", channel_name=inbox.name)
    res = teacher_client.post(f"/api/daemons/{daemon.id}/revoke/")
    assert res.status_code == 200 and res.json()["revoked"] is True
    daemon.refresh_from_db()
    assert daemon.revoked_at is not None and daemon.session == ""
    assert inbox.receive() == {"type": "daemon.revoke", "reason": "daemon key revoked"}
    assert Daemon.objects.get(key_hash=daemon_key_hash(key)).revoked_at is not None  # refused at hello


def test_rotate_gives_a_new_key_once_and_the_old_one_stops_working(teacher_client, inbox) -> None:
    daemon, old = daemon_make("lab-1", session="abc", channel_name=inbox.name)
    actions.daemon_revoke(daemon=daemon)
    assert inbox.receive()["reason"] == "daemon key revoked"
    res = teacher_client.post(f"/api/daemons/{daemon.id}/rotate-key/")
    assert res.status_code == 200
    body = res.json()
    assert not Daemon.objects.filter(key_hash=daemon_key_hash(old)).exists()
    assert Daemon.objects.get(key_hash=daemon_key_hash(body["key"])).id == daemon.id
    assert body["daemon"]["revoked"] is False and body["config"] == f'key = "{body["key"]}"\n'
    assert inbox.receive() == {"type": "daemon.revoke", "reason": "daemon key rotated"}
    assert body["key"] not in str(teacher_client.get("/api/daemons/").json())


def test_a_disconnected_daemon_is_revoked_without_a_message(teacher_client) -> None:
    daemon, _ = daemon_make("lab-1", state=Daemon.State.OFFLINE)
    assert teacher_client.post(f"/api/daemons/{daemon.id}/revoke/").status_code == 200


def test_drain_and_undrain(teacher_client) -> None:
    daemon, _ = daemon_make("lab-1")
    assert teacher_client.post(f"/api/daemons/{daemon.id}/drain/").json()["drained"] is True
    assert Daemon.objects.get(id=daemon.id).drained
    assert teacher_client.post(f"/api/daemons/{daemon.id}/undrain/").json()["drained"] is False
    assert teacher_client.post("/api/daemons/999/drain/").status_code == 404


def test_blacklist_add_list_remove_and_push(teacher_client, settings, inbox,
                                            django_capture_on_commit_callbacks) -> None:
    settings.SPLAYLAB_BLACKLIST = ["10.9.9.9"]
    online, _ = daemon_make("lab-1")
    offline, _ = daemon_make("lab-2", state=Daemon.State.OFFLINE)
    inbox.join(daemon_group(online.id))
    other = Inbox()
    other.join(daemon_group(offline.id))
    with django_capture_on_commit_callbacks(execute=True):
        res = teacher_client.post("/api/daemons/blacklist/", {"address": "192.168.7.9/24", "note": "lab router"},
                                  format="json")
    assert res.status_code == 201, res.json()
    assert (res.json()["address"], res.json()["note"]) == ("192.168.7.0/24", "lab router")
    pushed = inbox.receive()
    assert pushed["type"] == "daemon.command" and pushed["command"]["type"] == "blacklist"
    addresses = pushed["command"]["addresses"]
    assert addresses[0] == "10.9.9.9" and addresses[-1] == "192.168.7.0/24"
    assert other.empty()  # only online daemons
    async_to_sync(other.layer.close_pools)()

    listed = teacher_client.get("/api/daemons/blacklist/").json()
    assert listed["addresses"] == addresses
    [entry] = listed["entries"]
    assert entry["address"] == "192.168.7.0/24"

    dup = teacher_client.post("/api/daemons/blacklist/", {"address": "192.168.7.0/24"}, format="json")
    assert dup.status_code == 400 and "already" in dup.json()["address"][0]
    with django_capture_on_commit_callbacks(execute=True):
        assert teacher_client.delete(f"/api/daemons/blacklist/{entry['id']}/").status_code == 204
    assert "192.168.7.0/24" not in inbox.receive()["command"]["addresses"]
    assert not BlacklistEntry.objects.exists()
    assert teacher_client.delete(f"/api/daemons/blacklist/{entry['id']}/").status_code == 404


@pytest.mark.parametrize("address,message", [
    ("10.0.0.300", "'10.0.0.300' is not an IP address or CIDR (e.g. 10.0.0.1 or 192.168.7.0/24)"),
    ("example.org", "'example.org' is not an IP address or CIDR (e.g. 10.0.0.1 or 192.168.7.0/24)"),
    ("0.0.0.0/0", "0.0.0.0/0 would block every address"),
])
def test_blacklist_refuses_what_is_not_an_address(teacher_client, address, message) -> None:
    res = teacher_client.post("/api/daemons/blacklist/", {"address": address}, format="json")
    assert res.status_code == 400 and res.json() == {"address": [message]}


def test_address_normalize_accepts_ipv6() -> None:
    assert actions.address_normalize(" 2001:db8::1 ") == "2001:db8::1"
    assert actions.address_normalize("2001:db8::1/64") == "2001:db8::/64"


def test_controller_addresses_leave_out_loopback(settings, monkeypatch) -> None:
    monkeypatch.setattr(actions.socket, "gethostname", lambda: "ctl")
    monkeypatch.setattr(actions.socket, "getaddrinfo", lambda host, port: [
        (2, 1, 6, "", ("127.0.1.1", 0)), (2, 1, 6, "", ("10.1.2.3", 0)), (10, 1, 6, "", ("fe80::1%eth0", 0, 0, 0))])
    settings.ALLOWED_HOSTS = ["*", "lab.example.org", "192.0.2.7", "[::1]"]
    actions.controller_addresses.cache_clear()
    try:
        assert actions.controller_addresses() == ("10.1.2.3", "192.0.2.7")
    finally:
        actions.controller_addresses.cache_clear()


def test_a_controller_address_that_a_daemon_advertises_is_not_blacklisted(db, settings, monkeypatch) -> None:
    monkeypatch.setattr(actions, "controller_addresses", lambda: ("10.1.2.3", "192.0.2.7"))
    settings.SPLAYLAB_BLACKLIST = []
    assert actions.blacklist_addresses() == ["10.1.2.3", "192.0.2.7"]
    daemon_make("on-the-controller-host", ip="10.1.2.3")  # its nodes talk to each other there
    BlacklistEntry.objects.create(address="10.1.2.3")  # an instructor's entry still counts
    assert actions.blacklist_addresses() == ["192.0.2.7", "10.1.2.3"]


@pytest.mark.parametrize("method,path", [
    ("get", "/api/daemons/"), ("post", "/api/daemons/"), ("post", "/api/daemons/{id}/revoke/"),
    ("post", "/api/daemons/{id}/rotate-key/"), ("post", "/api/daemons/{id}/drain/"),
    ("post", "/api/daemons/{id}/undrain/"), ("get", "/api/daemons/blacklist/"),
    ("post", "/api/daemons/blacklist/"), ("delete", "/api/daemons/blacklist/{entry}/"),
])
def test_students_get_403_and_anonymous_401(student_client, anon_client, method, path) -> None:
    daemon, _ = daemon_make("lab-1")
    entry = BlacklistEntry.objects.create(address="10.0.0.1")
    url = path.format(id=daemon.id, entry=entry.id)
    assert getattr(student_client, method)(url, {}, format="json").status_code == 403
    assert getattr(anon_client, method)(url, {}, format="json").status_code == 401
    daemon.refresh_from_db()
    assert not daemon.drained and daemon.revoked_at is None and BlacklistEntry.objects.count() == 1
