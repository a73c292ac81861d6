"""Registration API for a course's instructors (the course page's LMS form), and roster sync
on demand. Not in the course: 404; in it without the role: 403."""
from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from courses.selectors import course_access_instructor, course_access_staff
from lib.schema import error

from .dynamic_registration import registration_token
from .models import Context, Platform
from .roster import RosterError, sync
from .selectors import platform_data, platform_list, tool_urls
from .services import platform_delete, platform_register, platform_update


class PlatformInput(serializers.Serializer):
    class Meta:
        ref_name = "LtiPlatformInput"

    name = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    issuer = serializers.CharField(max_length=500, help_text="the LMS's issuer (Canvas: https://canvas.instructure.com)")
    client_id = serializers.CharField(max_length=500, help_text="the LMS's id for SplayLab")
    deployment_ids = serializers.ListField(child=serializers.CharField(max_length=500), min_length=1, max_length=50)
    auth_login_url = serializers.URLField(max_length=1000)
    auth_token_url = serializers.URLField(max_length=1000)
    key_set_url = serializers.URLField(max_length=1000)


def _platform(course_id: int, platform_id: int) -> Platform:
    platform = Platform.objects.filter(id=platform_id, course_id=course_id).first()
    if platform is None:
        raise Http404("no such LMS registration in this course")
    return platform


class PlatformListApi(APIView):
    @extend_schema(responses=dict)
    def get(self, request: Request, course_id: int) -> Response:
        """The course's LMS registrations and what to paste into the LMS (instructors and TAs)."""
        access = course_access_staff(user=request.user, course_id=course_id)
        tool = tool_urls(request)
        if access.is_instructor:  # the link registers a platform in their name
            token = registration_token(course=access.course, by=request.user)
            tool["dynamic_registration_url"] = request.build_absolute_uri(f"/lti/register/{token}/")
        return Response({"tool": tool,
                         "platforms": [platform_data(p) for p in platform_list(access.course)]})

    @extend_schema(request=PlatformInput, responses={201: dict})
    def post(self, request: Request, course_id: int) -> Response:
        access = course_access_instructor(user=request.user, course_id=course_id)
        data = PlatformInput(data=request.data)
        data.is_valid(raise_exception=True)
        platform = platform_register(course=access.course, by=request.user, **data.validated_data)
        return Response(platform_data(platform), status=status.HTTP_201_CREATED)


class PlatformDetailApi(APIView):
    @extend_schema(request=PlatformInput, responses=dict)
    def patch(self, request: Request, course_id: int, platform_id: int) -> Response:
        course_access_instructor(user=request.user, course_id=course_id)
        data = PlatformInput(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        platform = platform_update(platform=_platform(course_id, platform_id),
                                   deployment_ids=fields.pop("deployment_ids", None), **fields)
        return Response(platform_data(platform))

    @extend_schema(request=None, responses={204: None})
    def delete(self, request: Request, course_id: int, platform_id: int) -> Response:
        course_access_instructor(user=request.user, course_id=course_id)
        platform_delete(platform=_platform(course_id, platform_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class RosterSyncApi(APIView):
    @extend_schema(request=None, responses={200: dict, 502: error("the LMS's roster could not be read: why")})
    def post(self, request: Request, course_id: int) -> Response:
        """Read the roster of every bound LMS course now (NRPS): {"members": n} or 502 with why."""
        access = course_access_staff(user=request.user, course_id=course_id)
        contexts = list(Context.objects.filter(course=access.course).order_by("id"))
        if not contexts:
            return Response({"detail": "no LMS course is bound to this course yet: launch SplayLab from the LMS once"},
                            status=status.HTTP_409_CONFLICT)
        try:
            members = sum(sync(context_id=c.id) for c in contexts)
        except RosterError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_502_BAD_GATEWAY)
        return Response({"members": members})
