from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import ManagesDaemons

from .models import Daemon
from .selectors import daemon_list


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
    sandbox = serializers.CharField(help_text='"bwrap" or "rlimits": how its nodes are isolated')

    def get_ports(self, daemon: Daemon) -> list[int]:
        return [daemon.port_lo, daemon.port_hi]


class DaemonListApi(APIView):
    permission_classes = [ManagesDaemons]

    @extend_schema(responses=DaemonOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(DaemonOutputSerializer(daemon_list(), many=True).data)
