"""Choosing the emulated network in the browser: the code's descriptor, an uploaded matrix, and
the errors that name what is wrong with one."""
from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from test_workspace_ui import login, replace_editor_text, run

pytestmark = [pytest.mark.stack, pytest.mark.browser]

APP = """require "splay.base"
events.run(function() events.sleep(1) events.exit() end)
"""
DESCRIBED = """--[[
BEGIN SPLAY RESOURCES RESERVATION
network_model const:20ms
network_loss 1%
END SPLAY RESOURCES RESERVATION
]]
""" + APP


def test_the_codes_descriptor_chooses_the_network_unless_the_run_bar_does(page: Page) -> None:
    login(page)
    replace_editor_text(page, DESCRIBED)
    expect(page.get_by_test_id("run-network")).to_have_value("")  # "as the code says"
    run(page, nodes=2, duration=10)
    expect(page.get_by_test_id("job-network")).to_have_text("const:20ms, loss 1%")

    page.goto("/")
    expect(page.get_by_test_id("editor").locator(".monaco-editor")).to_be_visible()
    replace_editor_text(page, DESCRIBED)
    page.get_by_test_id("run-network").select_option("king")
    run(page, nodes=2, duration=10)
    expect(page.get_by_test_id("job-network")).to_have_text("king, loss 1%")


def test_an_uploaded_matrix_runs_and_a_bad_one_is_refused_with_the_reason(page: Page) -> None:
    login(page)
    replace_editor_text(page, APP)
    page.get_by_test_id("run-network").select_option("matrix")
    page.get_by_test_id("run-button").click()
    expect(page.get_by_test_id("run-network-error")).to_contain_text("Choose a matrix file")

    page.get_by_test_id("run-network-file").set_input_files(
        files=[{"name": "ragged.csv", "mimeType": "text/csv", "buffer": b"0,10,20\n10,0\n"}])
    page.get_by_test_id("run-nodes").fill("2")
    page.get_by_test_id("run-button").click()
    expect(page.get_by_text("ragged.csv")).to_be_visible()  # the server's message names the file
    expect(page.get_by_text("not square")).to_be_visible()

    page.get_by_test_id("run-network-file").set_input_files(
        files=[{"name": "delays.csv", "mimeType": "text/csv", "buffer": b"0,10\n10,0\n"}])
    run(page, nodes=2, duration=10)
    expect(page.get_by_test_id("job-network")).to_have_text("matrix:delays.csv")
