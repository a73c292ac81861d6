from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from jobs.selectors import job_get

from .selectors import metric_chunks_after, metric_summary


class MetricChunkOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    node = serializers.ListField(child=serializers.IntegerField(), help_text="the node of each sample")
    t = serializers.ListField(child=serializers.FloatField(), help_text="epoch seconds, stamped by the daemon")
    value = serializers.ListField(child=serializers.FloatField())
    fields = serializers.ListField(child=serializers.DictField(allow_null=True), allow_null=True,
                                   help_text="the records' fields, parallel to value; null when none had any")


class MetricChunksOutputSerializer(serializers.Serializer):
    chunks = MetricChunkOutputSerializer(many=True)
    next_after = serializers.IntegerField(help_text="pass as `after` to get the following chunks")


class HistogramOutputSerializer(serializers.Serializer):
    gamma = serializers.FloatField(help_text="bucket i holds (gamma^(i-1), gamma^i]")
    positive = serializers.ListField(child=serializers.ListField(child=serializers.IntegerField()),
                                     help_text="[bucket, count] pairs, by bucket")
    negative = serializers.ListField(child=serializers.ListField(child=serializers.IntegerField()),
                                     help_text="[bucket, count] pairs of -value")
    zero = serializers.IntegerField()


class NodeCounterOutputSerializer(serializers.Serializer):
    node = serializers.IntegerField()
    count = serializers.IntegerField()
    sum = serializers.FloatField()
    last = serializers.FloatField()


class MetricSeriesOutputSerializer(serializers.Serializer):
    name = serializers.CharField()
    kind = serializers.CharField()
    count = serializers.IntegerField(help_text="records")
    sum = serializers.FloatField()
    min = serializers.FloatField(allow_null=True)
    max = serializers.FloatField(allow_null=True)
    histogram = HistogramOutputSerializer()
    nodes = NodeCounterOutputSerializer(many=True)
    fields = serializers.DictField(child=serializers.ListField(child=serializers.ListField(
        child=serializers.IntegerField())), help_text="histograms of small integer fields: [value, count] pairs")


class MetricSummaryOutputSerializer(serializers.Serializer):
    job = serializers.IntegerField()
    label = serializers.CharField(help_text="job, code version and network model, for legends")
    series = MetricSeriesOutputSerializer(many=True)


class JobMetricsApi(APIView):
    @extend_schema(responses=MetricSummaryOutputSerializer)
    def get(self, request: Request, job_id: int) -> Response:
        """The job's metrics as aggregated so far: histogram, per-node counters, field histograms."""
        job = job_get(user=request.user, job_id=job_id)
        return Response(MetricSummaryOutputSerializer(metric_summary(job=job)).data)


class JobMetricChunksApi(APIView):
    class FilterSerializer(serializers.Serializer):
        after = serializers.IntegerField(min_value=0, default=0)
        name = serializers.CharField(required=False, max_length=100)
        limit = serializers.IntegerField(min_value=1, max_value=1000, default=500)

    @extend_schema(parameters=[FilterSerializer], responses=MetricChunksOutputSerializer)
    def get(self, request: Request, job_id: int) -> Response:
        """Every sample, in chunks (one per metric and daemon batch), by increasing id."""
        job_get(user=request.user, job_id=job_id, instances=False)  # 404 for jobs the user may not see
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        after = filters.validated_data["after"]
        chunks = metric_chunks_after(job_id=job_id, **filters.validated_data)
        return Response(MetricChunksOutputSerializer(
            {"chunks": chunks, "next_after": chunks[-1]["id"] if chunks else after}).data)
