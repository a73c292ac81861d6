"""The tool's LTI endpoints (plain Django views: the LMS's browser posts forms, not JSON).

/lti/jwks/       our public keys (the LMS checks our service tokens and deep-linking answers)
/lti/login/      OIDC third-party login initiation (GET or POST from the LMS)
/lti/launch/     the id_token: a resource launch signs the user in and opens the assignment;
                 a deep-linking launch shows the instructor the course's assignments to pick
/lti/deep-link/  the instructor's pick, answered to the LMS as a signed form post
/lti/register/<token>/  LTI Dynamic Registration, started by the LMS (dynamic_registration.py)
"""
from __future__ import annotations

import html
import logging

from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from pylti1p3.contrib.django import DjangoMessageLaunch, DjangoOIDCLogin
from pylti1p3.exception import LtiException, OIDCException

from courses.models import Membership
from lib.errors import ApplicationError

from . import deep_linking, dynamic_registration
from .keys import jwks
from .launch import LaunchRefused, launch_bind, launch_validate, storage
from .tool_conf import DbToolConf
from .tasks import roster_sync

log = logging.getLogger(__name__)


def refused(message: str, status: int = 403) -> HttpResponse:
    return HttpResponse(f"<!doctype html><title>SplayLab: launch refused</title>"
                        f"<h1>SplayLab could not open this launch</h1><p>{html.escape(message)}</p>",
                        status=status)


@require_GET
def jwks_view(request: HttpRequest) -> JsonResponse:
    return JsonResponse(jwks())


@xframe_options_exempt  # the LMS frames these pages (the picker, a refusal's message)
@csrf_exempt
@require_http_methods(["GET", "POST"])
def login_view(request: HttpRequest) -> HttpResponse:
    """The LMS names itself (iss, client_id) and where the launch goes (target_link_uri);
    we answer with a redirect to its authorization endpoint carrying our state and nonce."""
    oidc = DjangoOIDCLogin(request, DbToolConf(), launch_data_storage=storage())
    target = request.GET.get("target_link_uri") or request.POST.get("target_link_uri")
    if not target:
        return refused("the LMS sent no target_link_uri", status=400)
    try:
        return oidc.disable_check_cookies().redirect(target)
    except (LtiException, OIDCException) as exc:
        iss = request.GET.get("iss") or request.POST.get("iss")
        client = request.GET.get("client_id") or request.POST.get("client_id")
        return refused(f"no LMS is registered with issuer {iss!r} and client id {client!r} ({exc})", status=400)


@xframe_options_exempt
@csrf_exempt
@require_POST
def launch_view(request: HttpRequest) -> HttpResponse:
    try:
        message = launch_validate(request)
        launch = launch_bind(message)
    except LaunchRefused as exc:
        return refused(str(exc))
    login(request, launch.user, backend="django.contrib.auth.backends.ModelBackend")
    if launch.role != Membership.Role.STUDENT:
        # Instructors' launches keep the roster as the LMS has it (Celery; the binding is committed).
        try:
            roster_sync.delay(launch.context.id)
        except Exception:  # noqa: BLE001 - a broker hiccup must not cost the instructor the launch
            log.warning("roster sync of LMS context %s could not be queued", launch.context.id, exc_info=True)
    if launch.deep_linking:
        if launch.role == Membership.Role.STUDENT:
            return refused("only the LMS course's instructors may add SplayLab assignments")
        return render(request, "lti/deep_link.html", deep_linking.picker_context(launch))
    if launch.assignment is not None:
        return HttpResponseRedirect(f"/courses/{launch.course.id}/assignments/{launch.assignment.slug}")
    return HttpResponseRedirect(f"/courses/{launch.course.id}")


@xframe_options_exempt
@csrf_exempt  # the form comes from our own page inside the LMS's frame; the launch id is the secret
@require_POST
def deep_link_view(request: HttpRequest) -> HttpResponse:
    """The instructor's pick: one LTI resource link per assignment, posted back to the LMS."""
    try:
        message = DjangoMessageLaunch.from_cache(request.POST.get("launch_id", ""), request, DbToolConf(),
                                                 launch_data_storage=storage())
    except LtiException:
        return refused("this deep-linking launch has expired: start it again from the LMS", status=400)
    try:
        page = deep_linking.answer(message, request.POST.getlist("assignment"), base_url=request.build_absolute_uri("/"))
    except LaunchRefused as exc:
        return refused(str(exc))
    return HttpResponse(page)


@xframe_options_exempt
@require_GET
def register_view(request: HttpRequest, token: str) -> HttpResponse:
    """The LMS opens this (in a frame or a window) with its openid_configuration URL; on success
    the page tells the LMS to close it (LTI-DR's org.imsglobal.lti.close message)."""
    config = request.GET.get("openid_configuration")
    if not config:
        return refused("the LMS sent no openid_configuration: start the registration from the LMS", status=400)
    try:
        platform = dynamic_registration.register(
            token=token, openid_configuration=config, registration_token=request.GET.get("registration_token"),
            base=request.build_absolute_uri("/").rstrip("/"))
    except (LaunchRefused, ApplicationError) as exc:
        return refused(str(exc), status=400)
    deployments = ", ".join(platform.deployments.values_list("deployment_id", flat=True))
    next_step = ("" if deployments else
                 " The LMS gave no deployment id: once you have installed SplayLab in the LMS course, add its "
                 "deployment id on the SplayLab course page.")
    return HttpResponse(
        "<!doctype html><title>SplayLab registered</title>"
        f"<h1>SplayLab is registered</h1><p>{html.escape(platform.issuer)}, client id "
        f"<code>{html.escape(platform.client_id)}</code>, for the course {html.escape(platform.course.name)}."
        f"{html.escape(next_step)}</p>"
        "<script>(window.opener || window.parent).postMessage({subject: 'org.imsglobal.lti.close'}, '*');</script>")
