"""Request bodies with bounds (docs/decisions.md, "Bad input"): every DRF parser refuses a body
over the view's cap with 413 before reading it whole, and JSON nested deeper than MAX_JSON_DEPTH
with 400 (Python's json would recurse ~1,000 levels into a RecursionError, a 500).

The cap is settings.SPLAYLAB_MAX_BODY_BYTES, or SPLAYLAB_MAX_UPLOAD_BYTES for views that take
code or uploaded files (they say `accepts_uploads = True`). A Content-Length over
it is refused at once; a body without one (chunked) is read at most cap + 1 bytes. Under ASGI,
lib.body_limit stops any body past the largest cap before Django spools it."""
from __future__ import annotations

import codecs
import re
from typing import IO, Any

from django.conf import settings
from rest_framework import parsers
from rest_framework.exceptions import APIException, ParseError
from rest_framework.settings import api_settings
from rest_framework.utils import json

MAX_JSON_DEPTH = 64
# A JSON string, escapes included (unrolled loop: linear, no backtracking blow-up).
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


class RequestTooLarge(APIException):
    status_code = 413
    default_code = "request_too_large"


def body_limit(view: Any) -> int:
    if getattr(view, "accepts_uploads", False):
        return int(settings.SPLAYLAB_MAX_UPLOAD_BYTES)
    return int(settings.SPLAYLAB_MAX_BODY_BYTES)


def _too_large(limit: int) -> RequestTooLarge:
    return RequestTooLarge(f"request body larger than {limit:,} bytes ({limit // 1024 // 1024} MB), "
                           "the limit of this endpoint")


def body_length_check(request: Any, limit: int) -> None:
    """413 when the declared Content-Length is over `limit` (nothing read yet)."""
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        raise ParseError("Content-Length is not a number") from None
    if declared > limit:
        raise _too_large(limit)


def body_read(stream: IO[bytes] | None, limit: int) -> bytes:
    """At most `limit` bytes of the body; 413 when there are more."""
    if stream is None:
        return b""
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise _too_large(limit)
    return data


def json_depth_exceeds(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether brackets outside strings nest deeper than `limit`: strings are dropped, then
    each pass removes the innermost `[]`/`{}` pairs (C-speed string work, at most limit passes)."""
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text)).replace("{", "[").replace("}", "]")
    for _ in range(limit):
        if "[]" not in brackets:
            return False
        brackets = brackets.replace("[]", "")
    return "[]" in brackets


def _too_deep() -> ParseError:
    return ParseError(f"JSON parse error - JSON nested deeper than {MAX_JSON_DEPTH} levels")


class JSONParser(parsers.JSONParser):
    """DRF's JSONParser with the body cap and the depth bound."""

    def parse(self, stream: IO[bytes], media_type: str | None = None,
              parser_context: dict[str, Any] | None = None) -> Any:
        parser_context = parser_context or {}
        limit = body_limit(parser_context.get("view"))
        if "request" in parser_context:
            body_length_check(parser_context["request"], limit)
        raw = body_read(stream, limit)
        encoding = parser_context.get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = codecs.decode(raw, encoding)
        except (UnicodeDecodeError, LookupError) as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
        if json_depth_exceeds(text):
            raise _too_deep()
        parse_constant = json.strict_constant if api_settings.STRICT_JSON else None
        try:
            return json.loads(text, parse_constant=parse_constant)
        except RecursionError:  # unbalanced brackets the depth scan cannot pair
            raise _too_deep() from None
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None


class FormParser(parsers.FormParser):
    """Django caps form fields (DATA_UPLOAD_MAX_MEMORY_SIZE); this refuses an oversized body first."""

    def parse(self, stream: IO[bytes], media_type: str | None = None,
              parser_context: dict[str, Any] | None = None) -> Any:
        parser_context = parser_context or {}
        body_length_check(parser_context["request"], body_limit(parser_context.get("view")))
        return super().parse(stream, media_type, parser_context)


class MultiPartParser(parsers.MultiPartParser):
    """Uploaded files are not covered by DATA_UPLOAD_MAX_MEMORY_SIZE: the body cap holds them."""

    def parse(self, stream: IO[bytes], media_type: str | None = None,
              parser_context: dict[str, Any] | None = None) -> Any:
        parser_context = parser_context or {}
        body_length_check(parser_context["request"], body_limit(parser_context.get("view")))
        return super().parse(stream, media_type, parser_context)
