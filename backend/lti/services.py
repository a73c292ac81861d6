"""Writes on registrations: an instructor registers their course's LMS (what the LMS showed
them when they added SplayLab as a tool), edits or removes it."""
from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.db import transaction
from rest_framework import status
from rest_framework.exceptions import ValidationError

from accounts.models import User
from courses.models import Course
from lib.errors import ApplicationError

from .models import Deployment, Platform

URL_FIELDS = ("auth_login_url", "auth_token_url", "key_set_url")
EDITABLE = ("name", "issuer", "client_id", *URL_FIELDS)
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")


def _urls_check(fields: dict[str, Any]) -> None:
    """The LMS's endpoints carry id_tokens and service tokens: https, except on this machine
    (a test LMS, a developer's)."""
    bad = {k: [f"must be an https URL (got {v!r})"] for k, v in fields.items()
           if k in URL_FIELDS and urlsplit(v).scheme != "https" and urlsplit(v).hostname not in LOCAL_HOSTS}
    if bad:
        raise ValidationError(bad)


def _deployments_set(platform: Platform, deployment_ids: list[str]) -> None:
    ids = sorted({d.strip() for d in deployment_ids if d.strip()})
    if not ids:
        raise ValidationError({"deployment_ids": ["at least one deployment id (the LMS shows it beside the client id)"]})
    Deployment.objects.filter(platform=platform).exclude(deployment_id__in=ids).delete()
    for d in ids:
        Deployment.objects.get_or_create(platform=platform, deployment_id=d)


def _unique_check(issuer: str, client_id: str, *, exclude: int | None = None) -> None:
    other = Platform.objects.filter(issuer=issuer, client_id=client_id).exclude(id=exclude).select_related("course").first()
    if other is not None:
        raise ApplicationError(
            f"issuer {issuer!r} with client id {client_id!r} is already registered (course {other.course.name!r}): "
            "one LMS registration serves one SplayLab course; add the tool to the LMS again for another",
            status_code=status.HTTP_409_CONFLICT)


def platform_register(*, course: Course, by: User, deployment_ids: list[str], **fields: Any) -> Platform:
    _urls_check(fields)
    _unique_check(fields["issuer"], fields["client_id"])
    with transaction.atomic():
        platform = Platform.objects.create(course=course, created_by=by, **{k: fields[k] for k in EDITABLE if k in fields})
        _deployments_set(platform, deployment_ids)
    return platform


def platform_update(*, platform: Platform, deployment_ids: list[str] | None = None, **fields: Any) -> Platform:
    _urls_check(fields)
    if "issuer" in fields or "client_id" in fields:
        _unique_check(fields.get("issuer", platform.issuer), fields.get("client_id", platform.client_id),
                      exclude=platform.id)
    with transaction.atomic():
        for key, value in fields.items():
            setattr(platform, key, value)
        platform.save()
        if deployment_ids is not None:
            _deployments_set(platform, deployment_ids)
    return platform


def platform_delete(*, platform: Platform) -> None:
    """Its LMS users' accounts and memberships stay (their work is theirs); launches stop."""
    platform.delete()
