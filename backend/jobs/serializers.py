"""The Job JSON of docs/architecture.md, shared by the REST API and the live `job.state`."""
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from lib.network import network_label

from .models import Job, JobInstance


class JobInstanceOutputSerializer(serializers.ModelSerializer):
    # The daemon's name, which instructors and students recognise (lab-1), not its row id.
    daemon = serializers.CharField(source="daemon.name", read_only=True, allow_null=True, default=None)

    class Meta:
        model = JobInstance
        fields = ["node", "daemon", "ip", "port", "state", "exit_reason", "plays"]


class JobChurnOutputSerializer(serializers.Serializer):
    name = serializers.CharField(source="churn_name")
    keep_population = serializers.BooleanField()
    positions = serializers.IntegerField(source="churn_positions")
    spares = serializers.IntegerField(source="churn_spares")
    epoch = serializers.FloatField(source="churn_epoch", allow_null=True)


class ChurnEventOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    node = serializers.IntegerField()
    plays = serializers.IntegerField(allow_null=True)
    event = serializers.CharField()
    t = serializers.FloatField()
    planned = serializers.FloatField(allow_null=True)
    graceful = serializers.BooleanField()
    text = serializers.CharField()


class JobListItemOutputSerializer(serializers.ModelSerializer):
    """A job in the list: everything but its code (a page of 200 jobs must not carry 200
    programs; the detail has it)."""
    owner = serializers.CharField(source="owner.username", read_only=True)
    code_version = serializers.CharField(read_only=True, help_text="8 hex digits of the code's SHA-256")
    network = serializers.SerializerMethodField(help_text="the emulated network, e.g. 'king, loss 1%'")
    churn = serializers.SerializerMethodField(help_text="the churn scenario, null without one")

    class Meta:
        model = Job
        fields = ["id", "name", "owner", "state", "reason", "error_line", "nodes", "duration",
                  "filename", "code_version", "network", "churn", "mode", "seed", "progress", "trace", "harness_of",
                  "created_at", "started_at", "ended_at"]

    def get_network(self, job: Job) -> str:
        return network_label(job.network)

    @extend_schema_field(JobChurnOutputSerializer(allow_null=True))
    def get_churn(self, job: Job) -> dict | None:
        return dict(JobChurnOutputSerializer(job).data) if job.has_churn else None


class JobOutputSerializer(JobListItemOutputSerializer):
    """A job with its code (the detail's fields but the instances)."""

    class Meta(JobListItemOutputSerializer.Meta):
        fields = [*JobListItemOutputSerializer.Meta.fields, "code"]


class JobDetailOutputSerializer(JobOutputSerializer):
    instances = serializers.SerializerMethodField()

    class Meta(JobOutputSerializer.Meta):
        fields = [*JobOutputSerializer.Meta.fields, "instances"]

    @extend_schema_field(JobInstanceOutputSerializer(many=True))
    def get_instances(self, job: Job) -> list[dict]:
        # Only kept slots (node set) are part of the deployment.
        kept = [i for i in job.instances.all() if i.node is not None]
        return JobInstanceOutputSerializer(kept, many=True).data


def job_to_dict(job: Job, *, instances: bool = True) -> dict:
    serializer = JobDetailOutputSerializer if instances else JobOutputSerializer
    return dict(serializer(job).data)
