"""LMS people as SplayLab accounts and course members: the roles claim (or an NRPS member's
roles) → a course role, the LMS's user (platform, sub) → one account. An account is never
matched by e-mail or name: an LMS that lets a user pick their e-mail would otherwise open
someone else's account."""
from __future__ import annotations

import hashlib
import re
from typing import Any

from accounts.models import User
from courses.models import Course, Membership

from .models import LmsUser, Platform

Role = Membership.Role

# LIS context role URIs (LTI 1.3 appendix A.2: ...lis/v2/membership#Instructor, sub-roles as
# .../membership/Instructor#TeachingAssistant) or their short forms ("Learner"). Institution and
# system roles (.../institution/person#Instructor) open no course: the LMS course's role counts.
_STAFF = {"Instructor": Role.INSTRUCTOR, "Administrator": Role.INSTRUCTOR, "ContentDeveloper": Role.INSTRUCTOR,
          "TeachingAssistant": Role.TA, "Learner": Role.STUDENT}
_RANK = [Role.TA, Role.INSTRUCTOR, Role.STUDENT]  # a TA is a sub-role of Instructor: it wins


def course_role(roles: list[str]) -> str | None:
    """The course role the LMS's roles give: instructor, ta, student, or None (no role that
    opens a SplayLab course: a mentor, a guest, institution roles only)."""
    found = set()
    for role in roles:
        if not isinstance(role, str):
            continue
        if "://" in role and "/membership" not in role:
            continue
        found.add(_STAFF.get(role.rsplit("#", 1)[-1].rsplit("/", 1)[-1]))
    return next((r for r in _RANK if r in found), None)


def _username_for(platform: Platform, sub: str, claims: dict[str, Any]) -> str:
    """A readable, free username: the LMS's preferred username (or the e-mail's local part)
    and a short hash of the identity, so that two LMSs' "jdoe" stay two accounts."""
    base = claims.get("preferred_username") or (claims.get("email") or "").split("@")[0] \
        or claims.get("given_name") or "lms-user"
    base = re.sub(r"[^\w.@+-]", "", str(base))[:100] or "lms-user"
    tag = hashlib.sha256(f"{platform.id}:{sub}".encode()).hexdigest()[:6]
    name = f"{base}-{tag}"
    n = 1
    while User.objects.filter(username=name).exists():
        n += 1
        name = f"{base}-{tag}-{n}"
    return name


def account_for(platform: Platform, sub: str, claims: dict[str, Any], role: str | None) -> User:
    """The account of the LMS user `sub`, made on first sight, its name and e-mail refreshed
    from the claims (the LMS is where they change)."""
    link = LmsUser.objects.select_related("user").filter(platform=platform, sub=sub).first()
    names = {"first_name": str(claims.get("given_name") or "")[:150],
             "last_name": str(claims.get("family_name") or "")[:150],
             "email": str(claims.get("email") or "")[:254]}
    if not names["first_name"] and not names["last_name"] and claims.get("name"):
        names["first_name"] = str(claims["name"])[:150]
    if link is not None:
        user = link.user
        changed = [k for k, v in names.items() if v and getattr(user, k) != v]
        for key in changed:
            setattr(user, key, names[key])
        if changed:
            user.save(update_fields=changed)
        return user
    kind = User.Role.INSTRUCTOR if role == Role.INSTRUCTOR else User.Role.TA if role == Role.TA else User.Role.STUDENT
    user = User(username=_username_for(platform, sub, claims), role=kind, **names)
    user.set_unusable_password()  # they sign in through the LMS only
    user.save()
    LmsUser.objects.create(platform=platform, sub=sub, user=user)
    return user


def membership_set(course: Course, user: User, role: str) -> Membership:
    """The LMS's role is the course role of an LMS account (the LMS is where it changes)."""
    membership, created = Membership.objects.get_or_create(course=course, user=user, defaults={"role": role})
    if not created and membership.role != role:
        membership.role = role
        membership.save(update_fields=["role"])
    return membership
