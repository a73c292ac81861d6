"""The OpenAPI schema tells what the API answers, errors included (issue 20).

Every operation gets the error answers it can give, each with the body DRF and lib.errors
really send, unless its @extend_schema already names that status:
- 400 (validation: {field: [messages]} or {detail}) on requests with a body or query filters;
- 401 where authentication runs (an invalid token header is a 401 even on open endpoints);
- 403 on writes (CSRF of session clients) and on views with permissions beyond signing in;
- 404 on paths with an id; 409 on writes (a conflict, lib.errors); 413 on bodies (lib.parsers);
  415 on bodies of a type no parser reads (or sent without a Content-Type).
429 is named by the views that count attempts or rate-limit (`ERROR_429`)."""
from __future__ import annotations

from typing import Any

from drf_spectacular import openapi
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse
from rest_framework import permissions, serializers


class ErrorOutputSerializer(serializers.Serializer):
    class Meta:
        ref_name = "ErrorDetail"

    detail = serializers.CharField(help_text="what is wrong, in words")


def error(description: str) -> OpenApiResponse:
    return OpenApiResponse(response=ErrorOutputSerializer, description=description)


ERROR_400 = OpenApiResponse(
    response=OpenApiTypes.OBJECT,
    description='invalid input: {"field": ["what is wrong", ...], ...} (nested like the request), '
                'or {"detail": "..."}')
ERROR_401 = error("not signed in, or an invalid token")
ERROR_403 = error("signed in without the right (or, for a session, without the CSRF token)")
ERROR_404 = error("no such object, or one you may not see")
ERROR_409 = error("conflicts with the current state (e.g. a name in use, a job already ended)")
ERROR_413 = error("request body larger than the endpoint's limit")
ERROR_415 = error("a body that is not JSON, form data or multipart (or has no Content-Type)")
ERROR_429 = error("too many attempts or requests: try again after Retry-After seconds")

_TRIVIAL_PERMISSIONS = (permissions.IsAuthenticated, permissions.AllowAny)
_WRITES = ("POST", "PUT", "PATCH", "DELETE")


class AutoSchema(openapi.AutoSchema):
    def _error_responses(self) -> dict[str, OpenApiResponse]:
        view, method = self.view, self.method
        has_body = method in ("POST", "PUT", "PATCH")
        out: dict[str, OpenApiResponse] = {}
        if has_body or (method == "GET" and self.get_override_parameters()):
            out["400"] = ERROR_400
        if view.authentication_classes:
            out["401"] = ERROR_401
        if method in _WRITES or any(not issubclass(p, _TRIVIAL_PERMISSIONS) for p in view.permission_classes):
            out["403"] = ERROR_403
        if "{" in self.path:
            out["404"] = ERROR_404
        if method in _WRITES:
            out["409"] = ERROR_409
        if has_body:
            out["413"] = ERROR_413
            out["415"] = ERROR_415
        return out

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses = super()._get_response_bodies(direction)
        if direction == "response":
            for code, answer in self._error_responses().items():
                if code not in responses:
                    responses[code] = self._get_response_for_code(answer, code, direction=direction)
        return responses
