"""Reads: a course's registrations as its instructors see them, the tool's own URLs, and the
gradebook's LMS column (each cell's passback state)."""
from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from rest_framework import serializers

from courses.models import Course

from .models import Context, GradeSync, Platform

_dt = serializers.DateTimeField().to_representation


def tool_urls(request: HttpRequest) -> dict[str, str]:
    """What an instructor pastes into the LMS (docs/lms.md)."""
    base = request.build_absolute_uri("/").rstrip("/")
    return {"login_url": f"{base}/lti/login/", "launch_url": f"{base}/lti/launch/",
            "deep_link_url": f"{base}/lti/launch/", "jwks_url": f"{base}/lti/jwks/",
            "redirect_uris": f"{base}/lti/launch/", "domain": request.get_host()}


def platform_data(platform: Platform) -> dict[str, Any]:
    contexts = Context.objects.filter(platform=platform).order_by("id")
    return {"id": platform.id, "name": platform.name, "issuer": platform.issuer, "client_id": platform.client_id,
            "deployment_ids": sorted(platform.deployments.values_list("deployment_id", flat=True)),
            "auth_login_url": platform.auth_login_url, "auth_token_url": platform.auth_token_url,
            "key_set_url": platform.key_set_url, "created_at": _dt(platform.created_at),
            "contexts": [{"id": c.id, "context_id": c.context_id, "title": c.title,
                          "grades": bool(c.lineitems_url), "roster": bool(c.memberships_url),
                          "roster_synced_at": _dt(c.roster_synced_at) if c.roster_synced_at else None,
                          "roster_error": c.roster_error} for c in contexts]}


def platform_list(course: Course) -> list[Platform]:
    return list(Platform.objects.filter(course=course).order_by("id"))


def gradebook_lms(data: dict[str, Any], course: Course) -> dict[str, Any]:
    """The gradebook's data with each cell's passback state ("lms": null when never sent) and
    whether the course is linked to an LMS that takes grades at all."""
    linked = Context.objects.filter(course=course).exclude(lineitems_url="").exists()
    syncs = {(s.assignment.slug, s.student_id): s for s in
             GradeSync.objects.filter(assignment__course=course).select_related("assignment")}
    for row in data["rows"]:
        for cell in row["cells"]:
            s = syncs.get((cell["assignment"], row["student"]["id"]))
            cell["lms"] = None if s is None else {
                "state": s.state, "reason": s.reason, "score": s.score, "submission": s.submission_id,
                "sent_at": _dt(s.sent_at) if s.sent_at else None, "changed_at": _dt(s.changed_at), "tries": s.tries}
    data["lms"] = {"linked": linked}
    return data
