"""NRPS roster sync: the bound LMS course's members as SplayLab accounts and memberships.
Members the LMS lists as Inactive or Deleted lose their membership (their submissions stay)."""
from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from pylti1p3.exception import LtiException
from pylti1p3.names_roles import NamesRolesProvisioningService

from courses.models import Membership

from .identities import account_for, course_role, membership_set
from .models import Context, LmsUser, Platform
from .passback import connector_for


class RosterError(Exception):
    pass


def sync(*, context_id: int) -> int:
    """Members added or updated; the context keeps when it last worked, or why it did not."""
    context = Context.objects.select_related("platform", "course").get(id=context_id)
    if not context.memberships_url:
        Context.objects.filter(id=context.id).update(roster_error="the LMS announced no roster service (NRPS)")
        raise RosterError("the LMS announced no roster service (NRPS) for this course: enable it for the tool")
    service = NamesRolesProvisioningService(connector_for(context),
                                            {"context_memberships_url": context.memberships_url})
    try:
        members = service.get_members()
    except (LtiException, OSError) as exc:
        Context.objects.filter(id=context.id).update(roster_error=str(exc)[:2000])
        raise RosterError(f"the LMS's roster could not be read: {exc}") from None
    count = 0
    with transaction.atomic():
        # As a launch does (launch.launch_bind): a launch making the same account meanwhile waits.
        Platform.objects.select_for_update().filter(id=context.platform_id).first()
        for member in members:
            sub = str(member.get("user_id") or "")
            role = course_role(list(member.get("roles") or []))
            if not sub:
                continue
            if member.get("status", "Active") != "Active":
                link = LmsUser.objects.filter(platform=context.platform, sub=sub).first()
                if link is not None:
                    Membership.objects.filter(course=context.course, user=link.user).delete()
                continue
            if role is None:
                continue
            user = account_for(context.platform, sub, dict(member), role)
            membership_set(context.course, user, role)
            count += 1
        Context.objects.filter(id=context.id).update(roster_synced_at=timezone.now(), roster_error="")
    return count
