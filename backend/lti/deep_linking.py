"""Deep linking: in the LMS, an instructor adds SplayLab as an activity and picks assignments
on our page; each becomes an LTI resource link that launches straight into it (custom parameter
`assignment=<slug>`) with a line item of 100 points for its grades."""
from __future__ import annotations

from typing import Any

from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.lineitem import LineItem as LibLineItem
from pylti1p3.message_launch import MessageLaunch

from courses.models import Membership
from grading.models import Assignment

from .launch import CLAIM, Launch, LaunchRefused
from .models import Context, LmsUser


def picker_context(launch: Launch) -> dict[str, Any]:
    assignments = Assignment.objects.filter(course=launch.course).order_by("deadline", "slug")
    return {"launch_id": launch.launch_id, "course": launch.course,
            "assignments": [{"slug": a.slug, "title": a.title, "published": a.published} for a in assignments]}


def resource_for(assignment: Assignment, *, launch_url: str) -> DeepLinkResource:
    lineitem = (LibLineItem().set_score_maximum(100).set_label(assignment.title)
                .set_resource_id(assignment.slug).set_tag(line_item_tag(assignment)))
    return (DeepLinkResource().set_url(launch_url).set_title(assignment.title)
            .set_custom_params({"assignment": assignment.slug}).set_lineitem(lineitem))


def line_item_tag(assignment: Assignment) -> str:
    return f"splaylab-assignment-{assignment.id}"


def answer(message: MessageLaunch, slugs: list[str], *, base_url: str) -> str:
    """The auto-submitting form that carries the signed LtiDeepLinkingResponse to the LMS.
    Only an instructor or TA of the bound course (by the restored launch's claims) may answer."""
    claims = message.get_launch_data()
    aud = claims.get("aud")
    client_id = aud[0] if isinstance(aud, list) and aud else aud
    link = LmsUser.objects.filter(platform__issuer=claims.get("iss"), platform__client_id=client_id,
                                  sub=claims.get("sub")).first()
    context = Context.objects.filter(platform__issuer=claims.get("iss"), platform__client_id=client_id,
                                     context_id=(claims.get(CLAIM + "context") or {}).get("id")).first()
    if link is None or context is None or not Membership.objects.filter(
            course=context.course, user=link.user,
            role__in=[Membership.Role.INSTRUCTOR, Membership.Role.TA]).exists():
        raise LaunchRefused("only the LMS course's instructors may add SplayLab assignments")
    assignments = list(Assignment.objects.filter(course=context.course, slug__in=slugs).order_by("slug"))
    if not assignments:
        raise LaunchRefused("pick at least one assignment of the course")
    launch_url = base_url.rstrip("/") + "/lti/launch/"
    return message.get_deep_link().output_response_form([resource_for(a, launch_url=launch_url) for a in assignments])
