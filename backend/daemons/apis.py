from django.db import transaction
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_field, inline_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from accounts.permissions import ManagesDaemons, OperatorWrites
from courses.models import Course
from courses.selectors import course_access_instructor, user_is_operator
from lib.schema import ERROR_404

from .actions import (blacklist_add, blacklist_addresses, blacklist_remove, daemon_create, daemon_drain,
                      daemon_key_rotate, daemon_revoke, daemon_undrain)
from .management.commands.daemon_create import config_toml
from .models import BlacklistEntry, Daemon, Reachability
from .reachability import reachability_probe_soon, reachability_rows
from .relay import SHORTCUT_PROTOCOL, relay_capable
from .selectors import blacklist_entries, daemon_get, daemon_list, daemon_running_jobs


class RunningJobSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    instances = serializers.IntegerField(help_text="its RESERVED or RUNNING instances on this daemon")


class DaemonOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    state = serializers.ChoiceField(choices=Daemon.State.choices)
    last_contact = serializers.DateTimeField(allow_null=True)
    ip = serializers.CharField(allow_null=True)
    max_instances = serializers.IntegerField()
    active_instances = serializers.IntegerField()
    ports = serializers.SerializerMethodField()
    version = serializers.IntegerField()
    sandbox = serializers.CharField(help_text='"docker", "bwrap" or "rlimits": how its nodes are isolated')
    labels = serializers.DictField(child=serializers.CharField(), help_text="its owner's, from hello")
    limits = serializers.DictField(help_text="its owner's ceilings, from hello (max_mem_mb, ...)")
    availability = serializers.CharField(help_text='its owner\'s policy: "always", "idle" or "windows" ("": unknown)')
    available = serializers.BooleanField()
    unavailable_reason = serializers.CharField()
    load = serializers.FloatField(allow_null=True, help_text="1-minute load average")
    rtt_ms = serializers.FloatField(allow_null=True, help_text="heartbeat round trip")
    drained = serializers.BooleanField()
    revoked = serializers.SerializerMethodField()
    running_jobs = serializers.SerializerMethodField()

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_ports(self, daemon: Daemon) -> list[int]:
        return [daemon.port_lo, daemon.port_hi]

    @extend_schema_field(serializers.BooleanField())
    def get_revoked(self, daemon: Daemon) -> bool:
        return daemon.revoked_at is not None

    @extend_schema_field(RunningJobSerializer(many=True))
    def get_running_jobs(self, daemon: Daemon) -> list[dict]:
        jobs = self.context.get("running_jobs", {})  # _daemons_out: the viewer's visible jobs
        return RunningJobSerializer(jobs.get(daemon.id, []), many=True).data


def _daemons_out(user: User, daemons: list[Daemon]) -> list[dict]:
    jobs = daemon_running_jobs(user=user, daemon_ids=[d.id for d in daemons])
    return DaemonOutputSerializer(daemons, many=True, context={"running_jobs": jobs}).data


def _daemon_out(user: User, daemon_id: int) -> dict:
    return _daemons_out(user, [daemon_get(user=user, daemon_id=daemon_id)])[0]


def _controller_url(request: Request) -> str:
    return f"{'wss' if request.is_secure() else 'ws'}://{request.get_host()}/ws/daemon/"


class DaemonWithKeySerializer(serializers.Serializer):
    daemon = DaemonOutputSerializer()
    key = serializers.CharField(help_text="shown this once; only its hash is stored")
    config = serializers.CharField(help_text="a splayd.toml holding the key")


class DaemonListApi(APIView):
    permission_classes = [ManagesDaemons]

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "DaemonCreateInput"

        name = serializers.RegexField(r"^[A-Za-z0-9_.-]+$", max_length=100,
                                      error_messages={"invalid": "letters, digits, _ . - only"})
        max_instances = serializers.IntegerField(min_value=1, max_value=10_000)
        port_lo = serializers.IntegerField(min_value=1, max_value=65535)
        port_hi = serializers.IntegerField(min_value=1, max_value=65535)
        course = serializers.IntegerField(
            required=False, allow_null=True, default=None,
            help_text="the course it serves (linked at once: its instructors manage it); required "
                      "unless you are a site operator, whose daemons without a course join the shared pool")

        def validate(self, data: dict) -> dict:
            if data["port_hi"] < data["port_lo"]:
                raise serializers.ValidationError({"port_hi": ["must be at least port_lo"]})
            if data["port_hi"] - data["port_lo"] + 1 < data["max_instances"]:
                raise serializers.ValidationError({"max_instances": [
                    f"{data['max_instances']} instances need as many ports; "
                    f"{data['port_lo']}-{data['port_hi']} has {data['port_hi'] - data['port_lo'] + 1}"]})
            return data

    @extend_schema(responses=DaemonOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(_daemons_out(request.user, list(daemon_list(user=request.user))))

    @extend_schema(request=InputSerializer, responses={201: DaemonWithKeySerializer, 404: ERROR_404})
    def post(self, request: Request) -> Response:
        """A new daemon; its key and a ready splayd.toml come back this once."""
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = dict(data.validated_data)
        course_id = v.pop("course")
        if course_id is None and not user_is_operator(request.user):
            raise serializers.ValidationError(
                {"course": ["name the course this daemon serves (only site operators add to the shared pool)"]})
        course = _course_for_new_daemon(request.user, course_id) if course_id else None
        with transaction.atomic():
            daemon, key = daemon_create(**v)
            if course is not None:
                course.daemons.add(daemon)
        config = config_toml(name=daemon.name, controller=_controller_url(request), key=key,
                             max_instances=daemon.max_instances, ports=(daemon.port_lo, daemon.port_hi),
                             work_dir=f"./{daemon.name}-work")
        return Response({"daemon": _daemon_out(request.user, daemon.id), "key": key, "config": config},
                        status=status.HTTP_201_CREATED)


def _course_for_new_daemon(user: User, course_id: int) -> Course:
    """The course a new daemon serves: one the user instructs, or any for a site operator."""
    if user_is_operator(user):
        return get_object_or_404(Course, id=course_id)
    return course_access_instructor(user=user, course_id=course_id).course


class _DaemonActionApi(APIView):
    permission_classes = [ManagesDaemons]

    def act(self, daemon: Daemon) -> None:
        raise NotImplementedError

    @extend_schema(request=None, responses=DaemonOutputSerializer)
    def post(self, request: Request, daemon_id: int) -> Response:
        self.act(daemon_get(user=request.user, daemon_id=daemon_id))
        return Response(_daemon_out(request.user, daemon_id))


class DaemonRevokeApi(_DaemonActionApi):
    """Its key is refused from now on; a connected daemon is disconnected at once."""

    def act(self, daemon: Daemon) -> None:
        daemon_revoke(daemon=daemon)


class DaemonDrainApi(_DaemonActionApi):
    """No new jobs on it; running ones continue."""

    def act(self, daemon: Daemon) -> None:
        daemon_drain(daemon=daemon)


class DaemonUndrainApi(_DaemonActionApi):
    def act(self, daemon: Daemon) -> None:
        daemon_undrain(daemon=daemon)


class DaemonRotateKeyApi(APIView):
    permission_classes = [ManagesDaemons]

    @extend_schema(request=None, responses=DaemonWithKeySerializer)
    def post(self, request: Request, daemon_id: int) -> Response:
        """A new key, shown this once; the old one stops working (a connected daemon is
        disconnected). Also lifts a revocation."""
        daemon, key = daemon_key_rotate(daemon=daemon_get(user=request.user, daemon_id=daemon_id))
        config = f'key = "{key}"\n'
        return Response({"daemon": _daemon_out(request.user, daemon.id), "key": key, "config": config})


class BlacklistEntrySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    address = serializers.CharField()
    note = serializers.CharField()
    created_at = serializers.DateTimeField()


class BlacklistOutputSerializer(serializers.Serializer):
    entries = BlacklistEntrySerializer(many=True, help_text="the instructors' (deletable)")
    addresses = serializers.ListField(child=serializers.CharField(),
                                      help_text="what daemons get: SPLAYLAB_BLACKLIST, the controller's own "
                                                "addresses, then the entries")


class BlacklistApi(APIView):
    """Read by whoever manages daemons; changed by site operators only (it reaches every daemon)."""
    permission_classes = [OperatorWrites]

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "BlacklistEntryInput"

        address = serializers.CharField(max_length=100, help_text="an IPv4/IPv6 address or CIDR")
        note = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")

    @extend_schema(responses=BlacklistOutputSerializer)
    def get(self, request: Request) -> Response:
        return Response(BlacklistOutputSerializer(
            {"entries": blacklist_entries(), "addresses": blacklist_addresses()}).data)

    @extend_schema(request=InputSerializer, responses={201: BlacklistEntrySerializer})
    def post(self, request: Request) -> Response:
        """Adds an address; every online daemon gets the new list."""
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        entry = blacklist_add(**data.validated_data)
        return Response(BlacklistEntrySerializer(entry).data, status=status.HTTP_201_CREATED)


class BlacklistEntryApi(APIView):
    permission_classes = [OperatorWrites]

    @extend_schema(responses={204: None})
    def delete(self, request: Request, entry_id: int) -> Response:
        blacklist_remove(entry=get_object_or_404(BlacklistEntry, id=entry_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class ReachabilitySerializer(serializers.Serializer):
    src = serializers.IntegerField(source="src_id", help_text="the daemon that probed")
    src_name = serializers.CharField(source="src.name")
    dst = serializers.IntegerField(source="dst_id", help_text="the daemon it tried to reach")
    dst_name = serializers.CharField(source="dst.name")
    status = serializers.ChoiceField(choices=Reachability.Status.choices,
                                     help_text='"direct": its nodes can connect to dst\'s; "none": they cannot')
    tcp = serializers.BooleanField()
    udp = serializers.BooleanField(help_text="the UDP echo answered too")
    tcp_ms = serializers.FloatField(allow_null=True, help_text="connect to answer")
    error = serializers.CharField(help_text="why not, TCP's (else UDP's); empty when both answered")
    address = serializers.CharField(help_text="what was tried, ip:port of dst's probe listener")
    measured_at = serializers.DateTimeField()
    via = serializers.SerializerMethodField(help_text=(
        'how src\'s nodes reach dst\'s: "direct"; "relay" (status none, both daemons keep a link to the '
        'node relay); "loopback" (a daemon\'s own nodes, status none at its address: over 127.0.0.1); "none"'))

    def get_via(self, row: Reachability) -> str:
        if row.status == Reachability.Status.DIRECT:
            return "direct"
        if row.src_id == row.dst_id:
            return "loopback" if row.src.version >= SHORTCUT_PROTOCOL else "none"
        both = relay_capable({d.id: d.version for d in (row.src, row.dst) if d.relay_up})
        return "relay" if len(both) == 2 else "none"


class ReachabilityApi(APIView):
    """Who can reach whom among the daemons you manage (issue 24): one row per ordered pair
    measured, the latest measure. POST asks them to measure again (in the background)."""
    permission_classes = [ManagesDaemons]

    @extend_schema(responses=ReachabilitySerializer(many=True))
    def get(self, request: Request) -> Response:
        ids = list(daemon_list(user=request.user).values_list("id", flat=True))
        return Response(ReachabilitySerializer(reachability_rows(daemon_ids=ids), many=True).data)

    @extend_schema(request=None, responses={202: inline_serializer(
        "ReachabilityProbeQueued", {"queued": serializers.BooleanField()})})
    def post(self, request: Request) -> Response:
        ids = list(daemon_list(user=request.user).values_list("id", flat=True))
        return Response({"queued": reachability_probe_soon(among=ids)}, status=status.HTTP_202_ACCEPTED)
