from django.conf import settings
from django.contrib.auth import authenticate, login, logout
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import ensure_csrf_cookie
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lib.attempts import AttemptLimit, attempt_failed, attempts_check, client_ip
from lib.schema import ERROR_429

from courses.selectors import user_is_operator

from .models import User
from .services import user_token_get_or_create


class MeOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    role = serializers.CharField()
    manages_daemons = serializers.BooleanField(
        help_text="site operators and instructors of some course: the daemons dashboard")
    operator = serializers.SerializerMethodField(
        help_text="a site operator (superuser or staff): every daemon, the shared pool and the blacklist")

    def get_operator(self, user: User) -> bool:
        return user_is_operator(user)


class CredentialsInputSerializer(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField(style={"input_type": "password"})


class TokenOutputSerializer(serializers.Serializer):
    token = serializers.CharField()


def _sign_in_limits(request: Request, username: str) -> list[AttemptLimit]:
    """Failed sign-ins (login and token alike) per username and address, and per address."""
    ip, window = client_ip(request), settings.SPLAYLAB_ATTEMPT_WINDOW
    return [AttemptLimit("signin", f"user:{username.lower()}|ip:{ip}", settings.SPLAYLAB_LOGIN_FAILURES_PER_USER,
                         window, "failed sign-ins for this user from your address"),
            AttemptLimit("signin", f"ip:{ip}", settings.SPLAYLAB_LOGIN_FAILURES_PER_IP,
                         window, "failed sign-ins from your address")]


def _check_credentials(request: Request) -> object:
    data = CredentialsInputSerializer(data=request.data)
    data.is_valid(raise_exception=True)
    limits = _sign_in_limits(request, data.validated_data["username"])
    attempts_check(limits)  # 429 while locked out, before any password is checked
    user = authenticate(request, **data.validated_data)
    if user is None:
        attempt_failed(limits)
        raise serializers.ValidationError({"detail": "wrong username or password"})
    return user


class LoginApi(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list = []

    @extend_schema(request=CredentialsInputSerializer, responses={200: MeOutputSerializer, 429: ERROR_429})
    def post(self, request: Request) -> Response:
        # DRF only checks CSRF for already-authenticated sessions; login must check it too
        # (login CSRF), so the SPA sends X-CSRFToken from the csrftoken cookie.
        SessionAuthentication().enforce_csrf(request)
        user = _check_credentials(request)
        login(request._request, user)
        return Response(MeOutputSerializer(user).data)


class LogoutApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(request=None, responses={204: None})
    def post(self, request: Request) -> Response:
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


@method_decorator(ensure_csrf_cookie, name="dispatch")  # plants csrftoken, signed in or not
class MeApi(APIView):
    """Who is signed in. "No one" is an answer (204), not an error: the SPA asks on every
    first page, /login included, and an anonymous visit logged a failed request in the
    browser's console and a `django.request` warning on the server each time. A bad token
    is still a 401 (authentication runs)."""
    permission_classes = [AllowAny]

    @extend_schema(responses={200: MeOutputSerializer,
                              204: OpenApiResponse(description="no one is signed in (the csrftoken cookie is set)")})
    def get(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(MeOutputSerializer(request.user).data)


class TokenApi(APIView):
    """GET: the signed-in user's API token. POST {username, password}: same, for the CLI
    (no session or CSRF needed)."""

    def get_permissions(self) -> list:
        return [AllowAny()] if self.request.method == "POST" else super().get_permissions()

    @extend_schema(responses=TokenOutputSerializer)
    def get(self, request: Request) -> Response:
        return Response({"token": user_token_get_or_create(user=request.user)})

    @extend_schema(request=CredentialsInputSerializer, responses={200: TokenOutputSerializer, 429: ERROR_429})
    def post(self, request: Request) -> Response:
        user = _check_credentials(request)
        return Response({"token": user_token_get_or_create(user=user)})
