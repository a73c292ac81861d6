"""LTI Dynamic Registration (IMS LTI-DR 1.0): the LMS opens our registration URL with its
OpenID configuration URL (and a one-time token); we read its configuration, post ours to its
registration endpoint, and keep the client id (and deployment id) it answers as a Platform of
the course. The URL is the course instructor's: a signed token names the course and them, so
the LMS's frame needs no SplayLab session."""
from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import requests
from django.core import signing
from django.db import transaction

from accounts.models import User
from courses.models import Course, Membership

from .launch import LaunchRefused
from .models import Deployment, Platform
from .services import LOCAL_HOSTS, _unique_check

SALT = "lti-dynamic-registration"
MAX_AGE_S = 7 * 86400
TOOL_CONFIG = "https://purl.imsglobal.org/spec/lti-tool-configuration"
PLATFORM_CONFIG = "https://purl.imsglobal.org/spec/lti-platform-configuration"
SCOPES = ["https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
          "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly",
          "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
          "https://purl.imsglobal.org/spec/lti-ags/scope/score",
          "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"]


def registration_token(*, course: Course, by: User) -> str:
    return signing.dumps({"course": course.id, "by": by.id}, salt=SALT)


def _course_and_instructor(token: str) -> tuple[Course, User]:
    try:
        data = signing.loads(token, salt=SALT, max_age=MAX_AGE_S)
    except signing.BadSignature:
        raise LaunchRefused("this registration link has expired or is not SplayLab's: "
                            "copy a fresh one from the course page") from None
    membership = Membership.objects.select_related("course", "user").filter(
        course_id=data.get("course"), user_id=data.get("by"), role=Membership.Role.INSTRUCTOR).first()
    if membership is None:
        raise LaunchRefused("the registration link's instructor no longer teaches its course")
    return membership.course, membership.user


def _secure(url: str, what: str) -> str:
    parts = urlsplit(url or "")
    if parts.scheme != "https" and not (parts.scheme == "http" and parts.hostname in LOCAL_HOSTS):
        raise LaunchRefused(f"the LMS's {what} must be an https URL (got {url!r})")
    return url


def tool_configuration(base: str) -> dict[str, Any]:
    """What we ask the LMS to register (LTI-DR 1.0 §3.1)."""
    launch = f"{base}/lti/launch/"
    return {
        "application_type": "web", "response_types": ["id_token"], "grant_types": ["implicit", "client_credentials"],
        "initiate_login_uri": f"{base}/lti/login/", "redirect_uris": [launch], "client_name": "SplayLab",
        "jwks_uri": f"{base}/lti/jwks/", "token_endpoint_auth_method": "private_key_jwt", "scope": " ".join(SCOPES),
        TOOL_CONFIG: {
            "domain": urlsplit(base).netloc, "target_link_uri": launch, "description": "Distributed-systems lab",
            "claims": ["iss", "sub", "name", "given_name", "family_name", "email", "preferred_username"],
            "messages": [{"type": "LtiDeepLinkingRequest", "target_link_uri": launch, "label": "SplayLab assignment",
                          "placements": ["ContentArea", "assignment_selection", "link_selection"]},
                         {"type": "LtiResourceLinkRequest", "target_link_uri": launch}]},
    }


def register(*, token: str, openid_configuration: str, registration_token: str | None, base: str) -> Platform:
    """The whole exchange; LaunchRefused says what went wrong, and nothing is kept then."""
    course, instructor = _course_and_instructor(token)
    try:
        config = requests.get(_secure(openid_configuration, "OpenID configuration URL"), timeout=15).json()
    except (requests.RequestException, ValueError) as exc:
        raise LaunchRefused(f"the LMS's OpenID configuration could not be read: {exc}") from None
    issuer = str(config.get("issuer") or "")
    # LTI-DR §3.5.1: the configuration URL is the issuer's (a configuration elsewhere could claim any issuer).
    if not issuer or urlsplit(issuer).netloc != urlsplit(openid_configuration).netloc:
        raise LaunchRefused(f"the LMS's configuration names issuer {issuer!r}, not the host it came from")
    urls = {"auth_login_url": _secure(config.get("authorization_endpoint", ""), "authorization endpoint"),
            "auth_token_url": _secure(config.get("token_endpoint", ""), "token endpoint"),
            "key_set_url": _secure(config.get("jwks_uri", ""), "JWKS URL")}
    endpoint = _secure(config.get("registration_endpoint", ""), "registration endpoint")
    headers = {"Authorization": f"Bearer {registration_token}"} if registration_token else {}
    try:
        answer = requests.post(endpoint, json=tool_configuration(base), headers=headers, timeout=15)
        body = answer.json() if answer.content else {}
    except (requests.RequestException, ValueError) as exc:
        raise LaunchRefused(f"the LMS's registration endpoint did not answer: {exc}") from None
    if not answer.ok or not body.get("client_id"):
        raise LaunchRefused(f"the LMS refused the registration ({answer.status_code}): {answer.text[:300]}")
    client_id = str(body["client_id"])
    deployment = str((body.get(TOOL_CONFIG) or {}).get("deployment_id") or "")
    product = (config.get(PLATFORM_CONFIG) or {}).get("product_family_code") or ""
    _unique_check(issuer, client_id)
    with transaction.atomic():
        platform = Platform.objects.create(course=course, created_by=instructor, name=str(product)[:200],
                                           issuer=issuer, client_id=client_id, **urls)
        if deployment:
            Deployment.objects.create(platform=platform, deployment_id=deployment)
    return platform
