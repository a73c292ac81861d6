"""An LTI launch: pylti1p3 checks the id_token (state, nonce, issuer and audience, signature and
expiry, deployment, message); we refuse a replay and bind what the claims say (the LMS course,
the user and their role, the assignment) in one transaction: a refused launch creates nothing."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.utils import timezone
from pylti1p3.contrib.django import DjangoMessageLaunch
from pylti1p3.contrib.django.launch_data_storage.cache import DjangoCacheDataStorage
from pylti1p3.exception import LtiException

from accounts.models import User
from courses.models import Course
from grading.models import Assignment

from .identities import account_for, course_role, membership_set
from .models import Context, LineItem, Platform, UsedNonce
from .tool_conf import DbToolConf

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
LAUNCH_LIFETIME = 3600  # a deep-linking launch must be answered within it


class LaunchRefused(Exception):
    """A launch SplayLab will not honour; the message says why, for the person in the LMS."""


@dataclass(frozen=True)
class Launch:
    user: User
    course: Course
    role: str
    assignment: Assignment | None
    context: Context
    deep_linking: bool
    launch_id: str


def storage() -> DjangoCacheDataStorage:
    """Login state and nonces in the Redis cache: a launch inside an LMS's iframe may come
    without our session cookie."""
    return DjangoCacheDataStorage(cache_name="default")


def _unverified_claims(request: HttpRequest) -> dict[str, Any]:
    """The id_token's body, unchecked: only to word a refusal (which issuer, which audience)."""
    import jwt

    try:
        return jwt.decode(request.POST.get("id_token", ""), options={"verify_signature": False})
    except jwt.InvalidTokenError:
        return {}


def _clear(message: str, claims: dict[str, Any]) -> str:
    """pylti1p3's terse messages, said for a person who has to fix the registration."""
    iss, aud = claims.get("iss"), claims.get("aud")
    deployment = claims.get(CLAIM + "deployment_id")
    if message in ("Missing state param", "State not found") or message.startswith("Missing %s cookie"):
        return ("the launch's state is not one SplayLab issued (start the launch again from the LMS; "
                "a browser that blocks third-party cookies may need the tool to open in a new window)")
    if message in ("Invalid Nonce", '"nonce" is empty'):
        return "the id_token's nonce is not the one SplayLab issued at login: refused"
    if message in ("Registration not found.", "Client id not registered for this issuer"):
        return (f"no LMS is registered with issuer {iss!r} and client id {aud!r} (the id_token's audience): "
                "check the registration in the SplayLab course")
    if message == "Unable to find deployment":
        return f"deployment {deployment!r} is not registered for this LMS: add it to the registration"
    if "Signature has expired" in message:
        return "the id_token has expired: launch again from the LMS"
    if "Signature verification failed" in message or message == "Unable to find public key":
        return "the id_token's signature does not verify against the LMS's keys (its JWKS URL): refused"
    return f"the launch was refused: {message}"


def launch_validate(request: HttpRequest) -> DjangoMessageLaunch:
    """pylti1p3's checks; LaunchRefused with a clear message."""
    try:
        # Under https the storage wants its session cookie (set at login): a missing one is
        # refused here, in the constructor.
        launch = DjangoMessageLaunch(request, DbToolConf(), launch_data_storage=storage())
        launch.set_launch_data_lifetime(LAUNCH_LIFETIME)
        launch.validate()
    except LtiException as exc:
        raise LaunchRefused(_clear(str(exc), _unverified_claims(request))) from None
    return launch


def _context(platform: Platform, claims: dict[str, Any]) -> Context:
    """The bound LMS course: the registration's course is bound to the first LMS course that
    launches it; another LMS course through the same registration is refused."""
    ctx = claims.get(CLAIM + "context") or {}
    context_id = str(ctx.get("id") or "")
    if not context_id:
        raise LaunchRefused("the launch names no LMS course (context claim): add SplayLab inside a course")
    context = Context.objects.select_related("course").filter(platform=platform, context_id=context_id).first()
    if context is not None:
        return context
    bound = Context.objects.filter(platform=platform).first()
    if bound is not None:
        raise LaunchRefused(
            f"this LMS registration is bound to the LMS course {bound.title or bound.context_id!r} "
            f"(SplayLab course {platform.course.name!r}); LMS course {ctx.get('title') or context_id!r} "
            "needs a registration of its own in its SplayLab course")
    return Context.objects.create(platform=platform, context_id=context_id, course=platform.course,
                                  title=str(ctx.get("title") or ctx.get("label") or "")[:500])


def _services(context: Context, claims: dict[str, Any]) -> None:
    """Keep the AGS and NRPS URLs the launch carries (the LMS may move them)."""
    ags, nrps = claims.get(AGS_CLAIM) or {}, claims.get(NRPS_CLAIM) or {}
    fields = {"deployment_id": str(claims.get(CLAIM + "deployment_id") or "")}
    if ags.get("lineitems"):
        fields.update(lineitems_url=ags["lineitems"], ags_scopes=list(ags.get("scope") or []))
    if nrps.get("context_memberships_url"):
        fields["memberships_url"] = nrps["context_memberships_url"]
    changed = {k: v for k, v in fields.items() if getattr(context, k) != v}
    if changed:
        Context.objects.filter(id=context.id).update(**changed)
        for k, v in changed.items():
            setattr(context, k, v)


def _assignment(context: Context, claims: dict[str, Any], role: str) -> Assignment | None:
    """The assignment the resource link names (custom parameter `assignment=<slug>`, set by
    deep linking), its AGS line item kept for passback."""
    slug = str((claims.get(CLAIM + "custom") or {}).get("assignment") or "")
    assignment = Assignment.objects.filter(course=context.course, slug=slug).first() if slug else None
    if assignment is None:
        return None
    lineitem = (claims.get(AGS_CLAIM) or {}).get("lineitem")
    link = str((claims.get(CLAIM + "resource_link") or {}).get("id") or "")
    if lineitem:
        LineItem.objects.update_or_create(context=context, assignment=assignment,
                                          defaults={"url": lineitem, "resource_link_id": link})
    if role == "student" and not assignment.published:
        return None
    return assignment


def launch_bind(launch: DjangoMessageLaunch) -> Launch:
    """Refuse a replay, then bind the claims; everything in one transaction."""
    claims = launch.get_launch_data()
    aud = claims.get("aud")
    client_id = aud[0] if isinstance(aud, list) and aud else aud
    platform = Platform.objects.select_related("course").get(issuer=claims["iss"], client_id=client_id)
    role = course_role(list(claims.get(CLAIM + "roles") or []))
    if role is None:
        raise LaunchRefused("your role in the LMS course (its roles claim) opens no SplayLab course: "
                            "learners, teaching assistants and instructors only")
    sub = str(claims.get("sub") or "")
    if not sub:
        raise LaunchRefused("the launch names no user (anonymous launches are not supported)")
    with transaction.atomic():
        # One binding per registration at a time: two first launches at once (a class opening
        # a new assignment, a double click) would both find no LMS course, account or LmsUser and
        # both make one, and the slower would end in a unique-constraint 500. Waiting on the
        # registration's row, the second binds after the first commits and finds what it made.
        # A binding is a few milliseconds; a registration serves one course.
        Platform.objects.select_for_update().filter(id=platform.id).first()
        try:
            with transaction.atomic():
                UsedNonce.objects.create(platform=platform, nonce=str(claims["nonce"]))
        except IntegrityError:
            raise LaunchRefused("this id_token was already used (a replayed launch): "
                                "launch again from the LMS") from None
        context = _context(platform, claims)
        _services(context, claims)
        user = account_for(platform, sub, claims, role)
        membership_set(context.course, user, role)
        assignment = _assignment(context, claims, role)
    return Launch(user=user, course=context.course, role=role, assignment=assignment, context=context,
                  deep_linking=launch.is_deep_link_launch(), launch_id=launch.get_launch_id())


def nonces_prune(*, older_than_s: int = 2 * 86400) -> int:
    """A used nonce matters while its id_token could still verify (minutes): prune old ones."""
    deleted, _ = UsedNonce.objects.filter(used_at__lt=timezone.now() - timedelta(seconds=older_than_s)).delete()
    return deleted
