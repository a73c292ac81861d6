"""lib.parsers and lib.body_limit: request bodies are bounded in size and JSON depth on every
endpoint, the anonymous ones included (issue 20)."""
from __future__ import annotations

import io
import json

import pytest
from asgiref.sync import async_to_sync
from django.test import override_settings
from rest_framework.test import APIClient

from lib.body_limit import BodyLimitMiddleware
from lib.parsers import MAX_JSON_DEPTH, json_depth_exceeds


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth, deeper", [(1, False), (MAX_JSON_DEPTH, False), (MAX_JSON_DEPTH + 1, True),
                                           (1000, True), (100_000, True)])
def test_depth_is_counted_on_brackets(depth: int, deeper: bool) -> None:
    assert json_depth_exceeds(_nested(depth)) is deeper
    assert json_depth_exceeds(_nested(depth).replace("[", "{\"k\":[", 1).replace("]", "]}", 1)) is (depth + 1 > 64)


def test_brackets_inside_strings_do_not_count() -> None:
    text = json.dumps({"code": "[" * 500 + "\\\"{{{" + "}" * 3, "list": [[1, 2], {"a": "]]]"}]})
    assert not json_depth_exceeds(text)
    assert json_depth_exceeds(json.dumps({"s": "]" * 70, "deep": json.loads(_nested(70))}))


@pytest.mark.django_db
def test_deep_json_is_a_400_on_the_anonymous_token_endpoint(anon_client: APIClient) -> None:
    res = anon_client.post("/api/auth/token/", data=_nested(1000), content_type="application/json")
    assert res.status_code == 400
    assert f"JSON nested deeper than {MAX_JSON_DEPTH} levels" in res.json()["detail"]


def test_deep_unclosed_json_is_a_400_too(student_client: APIClient) -> None:
    res = student_client.post("/api/workspaces/", data="[" * 5000, content_type="application/json")
    assert res.status_code == 400
    assert "nested deeper" in res.json()["detail"]


def test_json_of_normal_depth_still_works(student_client: APIClient) -> None:
    res = student_client.post("/api/workspaces/", data={"name": "w", "files": [{"path": "a.lua", "content": "[[x]]"}]},
                              format="json")
    assert res.status_code == 201
    assert res.json()["files"] == [{"path": "a.lua", "content": "[[x]]"}]


@override_settings(SPLAYLAB_MAX_BODY_BYTES=1000)
def test_a_declared_length_over_the_cap_is_a_413_naming_the_limit(anon_client: APIClient) -> None:
    body = json.dumps({"username": "x" * 2000, "password": "y"})
    res = anon_client.post("/api/auth/token/", data=body, content_type="application/json")
    assert res.status_code == 413
    assert "larger than 1,000 bytes" in res.json()["detail"]


@override_settings(SPLAYLAB_MAX_BODY_BYTES=1000, SPLAYLAB_MAX_UPLOAD_BYTES=100_000)
def test_code_endpoints_take_the_upload_cap(student_client: APIClient) -> None:
    files = [{"path": "app.lua", "content": "-- " + "x" * 5000}]
    assert student_client.post("/api/workspaces/", data={"name": "big", "files": files}, format="json").status_code == 201
    assert student_client.post("/api/courses/join/", data={"code": "x" * 5000}, format="json").status_code == 413


@override_settings(SPLAYLAB_MAX_BODY_BYTES=1000)
def test_a_body_without_length_is_read_at_most_to_the_cap() -> None:
    """A chunked body (no Content-Length): the parser reads cap + 1 bytes, never the rest."""
    from rest_framework.exceptions import APIException

    from lib.parsers import JSONParser

    class Endless(io.RawIOBase):
        read_bytes = 0

        def read(self, n: int = -1) -> bytes:
            assert n != -1, "the parser asked for the whole body"
            self.read_bytes += n
            return b" " * n

    stream = Endless()
    with pytest.raises(APIException) as err:
        JSONParser().parse(stream, parser_context={})
    assert err.value.status_code == 413
    assert stream.read_bytes == 1001


@override_settings(SPLAYLAB_MAX_BODY_BYTES=1000)
def test_form_and_multipart_bodies_are_capped_too(student_client: APIClient) -> None:
    res = student_client.post("/api/courses/join/", data={"code": "x" * 5000})  # multipart
    assert res.status_code == 413
    res = student_client.post("/api/courses/join/", data="code=" + "x" * 5000,
                              content_type="application/x-www-form-urlencoded")
    assert res.status_code == 413


# ASGI: Django spools the whole body before a view runs, so the cap also holds in front of it.

def _asgi_call(headers: list[tuple[bytes, bytes]], chunks: list[bytes], max_bytes: int) -> tuple[list, dict]:
    seen: dict = {"app_bodies": [], "app_called": False}
    sent: list = []

    async def app(scope, receive, send):  # stands for Django's ASGI handler: reads, then answers
        seen["app_called"] = True
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            seen["app_bodies"].append(message["body"])
            if not message.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    pending = [{"type": "http.request", "body": c, "more_body": i < len(chunks) - 1} for i, c in enumerate(chunks)]

    async def receive():
        return pending.pop(0)

    async def send(message):
        sent.append(message)

    async_to_sync(BodyLimitMiddleware(app, max_bytes))({"type": "http", "headers": headers}, receive, send)
    return sent, seen


def test_asgi_refuses_a_declared_length_over_the_cap_without_reading() -> None:
    sent, seen = _asgi_call([(b"content-length", b"5000")], [b"x" * 5000], 1000)
    assert sent[0]["status"] == 413
    assert not seen["app_called"]
    assert "larger than 1,000 bytes" in json.loads(sent[1]["body"])["detail"]


def test_asgi_cuts_a_chunked_body_at_the_cap() -> None:
    sent, seen = _asgi_call([], [b"x" * 600, b"x" * 600, b"x" * 600], 1000)
    assert [m.get("status") for m in sent if m["type"] == "http.response.start"] == [413]
    assert seen["app_bodies"] == [b"x" * 600]  # the second chunk never reached the app


def test_asgi_lets_a_body_within_the_cap_through() -> None:
    sent, seen = _asgi_call([], [b"x" * 400, b"x" * 400], 1000)
    assert sent[0]["status"] == 200
    assert seen["app_bodies"] == [b"x" * 400, b"x" * 400]
