"""The instructors' daemon dashboard (issue 8): an instructor sees both local daemons ONLINE
with their capacity and reaching each other directly (issue 24), drains one (and undrains it), creates a daemon and sees its key once; a
student gets no dashboard (no nav entry, the page refuses, the API answers 403)."""
from __future__ import annotations

import re
import time
import urllib.error

import pytest
from playwright.sync_api import Page, expect

from test_workspace_ui import login

pytestmark = [pytest.mark.stack, pytest.mark.browser]


def _row(page: Page, name: str):
    return page.locator(f'[data-testid="daemon-row"][data-daemon="{name}"]')


def _status(stack, method: str, path: str, token: str, body: dict | None = None) -> int:
    try:
        stack.api(method, path, body, token=token)
        return 200
    except urllib.error.HTTPError as exc:
        return exc.code


def test_an_instructor_watches_drains_and_creates_daemons(page: Page, stack) -> None:
    login(page, "teacher", "teacher-demo")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Daemons").click()
    expect(page).to_have_url(re.compile(r"/daemons$"))
    for name in ("lab-1", "lab-2"):
        row = _row(page, name)
        expect(row.get_by_test_id("daemon-state")).to_have_text("ONLINE")
        expect(row.get_by_test_id("daemon-capacity")).to_have_text(re.compile(r"^\d+ / 100$"))
        expect(row.get_by_test_id("daemon-takes-jobs")).to_have_text("takes jobs")
        expect(row).to_contain_text(re.compile(r"just now|\d+ s ago"))

    # Who reaches whom (issue 24): the two local daemons probed each other after their hello.
    grid = page.get_by_test_id("reachability")
    expect(grid.get_by_test_id("reach-lab-1-lab-2")).to_have_text(re.compile(r"^direct \d+\.\d ms$"), timeout=15_000)
    expect(grid.get_by_test_id("reach-lab-2-lab-1")).to_have_text(re.compile(r"^direct \d+\.\d ms$"))

    lab2 = _row(page, "lab-2")
    try:
        lab2.get_by_role("button", name="Drain").click()
        expect(lab2.get_by_test_id("daemon-drained")).to_be_visible()
        expect(lab2.get_by_test_id("daemon-takes-jobs")).to_have_text("no new jobs: drained")
        drained = {d["name"]: d["drained"] for d in stack.api("GET", "/api/daemons/", token=stack.teacher_token)}
        assert drained == {"lab-1": False, "lab-2": True}
        # still ONLINE, still polled
        expect(lab2.get_by_test_id("daemon-state")).to_have_text("ONLINE")
    finally:  # the session's other tests need both daemons
        lab2.get_by_role("button", name="Undrain").click()
        expect(lab2.get_by_test_id("daemon-takes-jobs")).to_have_text("takes jobs")

    name = f"volunteer-{int(time.time())}"
    form = page.get_by_role("form", name="Create a daemon")
    form.get_by_label("Name").fill(name)
    form.get_by_label("Max instances").fill("4")
    form.get_by_label("Ports").fill("31000-31099")
    form.get_by_role("button", name="Create").click()
    key = page.get_by_test_id("daemon-key").inner_text()
    assert re.fullmatch(r"[A-Za-z0-9_-]{40,}", key), key
    config = page.get_by_test_id("daemon-config").inner_text()
    assert f'key = "{key}"' in config and f'name = "{name}"' in config and "ports = [31000, 31099]" in config
    assert f'controller = "ws://{stack.url.split("://", 1)[1]}/ws/daemon/"' in config
    expect(_row(page, name).get_by_test_id("daemon-state")).to_have_text("OFFLINE")
    page.get_by_role("button", name="Done").click()
    expect(page.get_by_test_id("daemon-key")).to_have_count(0)
    page.reload()
    expect(_row(page, name)).to_be_visible()
    assert key not in page.content()
    assert key not in str(stack.api("GET", "/api/daemons/", token=stack.teacher_token))

    # the blacklist editor: an entry is added (normalized), pushed to the online daemons, removed
    blacklist = page.get_by_test_id("blacklist")
    blacklist.get_by_label("Address or CIDR").fill("192.0.2.77/24")
    blacklist.get_by_label("Note").fill("lab router")
    blacklist.get_by_role("button", name="Add").click()
    expect(blacklist.get_by_test_id("blacklist-entry")).to_contain_text("192.0.2.0/24")
    assert "192.0.2.0/24" in stack.api("GET", "/api/daemons/blacklist/", token=stack.teacher_token)["addresses"]
    blacklist.get_by_label("Address or CIDR").fill("not-an-ip")
    blacklist.get_by_role("button", name="Add").click()
    expect(blacklist.get_by_role("alert")).to_contain_text("is not an IP address or CIDR")
    blacklist.get_by_role("button", name="Remove 192.0.2.0/24").click()
    expect(blacklist.get_by_test_id("blacklist-entry")).to_have_count(0)


def test_a_student_gets_no_dashboard(page: Page, stack) -> None:
    token = stack.user_create("daemons-ui-student")
    login(page, "daemons-ui-student", "pw-daemons-ui-student")
    nav = page.get_by_role("navigation", name="Main")
    expect(nav.get_by_role("link", name="Jobs")).to_be_visible()
    expect(nav.get_by_role("link", name="Daemons")).to_have_count(0)
    page.goto("/daemons")
    expect(page.get_by_role("alert")).to_contain_text("Only instructors manage daemons.")
    expect(page.get_by_test_id("daemons-table")).to_have_count(0)

    assert _status(stack, "GET", "/api/daemons/", token) == 403
    assert _status(stack, "GET", "/api/daemons/blacklist/", token) == 403
    assert _status(stack, "POST", "/api/daemons/", token, {"name": "x", "max_instances": 1,
                                                            "port_lo": 1, "port_hi": 2}) == 403
    lab1 = next(d for d in stack.api("GET", "/api/daemons/", token=stack.teacher_token) if d["name"] == "lab-1")
    assert _status(stack, "POST", f"/api/daemons/{lab1['id']}/drain/", token, {}) == 403
