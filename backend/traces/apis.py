from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from jobs.selectors import job_get

from .selectors import API_COLUMNS, job_start, trace_rows_after, trace_summary


class TraceNodeOutputSerializer(serializers.Serializer):
    node = serializers.IntegerField()
    rows = serializers.IntegerField(help_text="rows stored")
    messages_out = serializers.IntegerField(help_text="messages it started: calls, ucalls, sends, sendtos")
    messages_in = serializers.IntegerField(help_text="requests it received and answered: serves, userves")
    bytes_out = serializers.IntegerField()
    bytes_in = serializers.IntegerField()
    peers = serializers.IntegerField(help_text="distinct peers its rows name")
    capped = serializers.BooleanField(help_text="its listing stopped at max_events (sums stay exact)")


class TraceTotalsOutputSerializer(serializers.Serializer):
    rows = serializers.IntegerField()
    messages_out = serializers.IntegerField()
    messages_in = serializers.IntegerField()
    bytes_out = serializers.IntegerField()
    bytes_in = serializers.IntegerField()


class TraceOpOutputSerializer(serializers.Serializer):
    op = serializers.CharField(help_text="the operation's id, e.g. '3:1718000000000:7'")
    name = serializers.CharField(help_text="from its `op` row; '' until that row arrives")
    messages = serializers.IntegerField(help_text="messages started in it (each exchange once)")
    bytes = serializers.IntegerField(help_text="their bytes, out + in")
    max_depth = serializers.IntegerField()


class TraceSummaryOutputSerializer(serializers.Serializer):
    nodes = TraceNodeOutputSerializer(many=True)
    totals = TraceTotalsOutputSerializer()
    ops = TraceOpOutputSerializer(many=True)
    capped = serializers.BooleanField(help_text="some node's listing stopped at max_events")
    ops_truncated = serializers.BooleanField(help_text="more operations than the summary keeps")


class TraceOutputSerializer(serializers.Serializer):
    job = serializers.IntegerField()
    trace = serializers.DictField(child=serializers.IntegerField(), allow_null=True,
                                  help_text='the job\'s trace option: {"max_events": N}, null when off')
    start = serializers.FloatField(help_text="epoch seconds of t = 0 (the job's start)")
    columns = serializers.ListField(child=serializers.CharField())
    rows = serializers.ListField(child=serializers.ListField(), help_text=(
        "one array per row, in `columns` order: t (seconds since the job started), node (the "
        "tracing node), then the runtime's columns (docs/trace.md)"))
    next_after = serializers.IntegerField(help_text="pass as `after` to get the following rows")
    summary = TraceSummaryOutputSerializer(help_text="the whole job's, whatever the page")


class JobTraceApi(APIView):
    class FilterSerializer(serializers.Serializer):
        after = serializers.IntegerField(min_value=0, default=0, help_text="a chunk id (next_after)")
        limit = serializers.IntegerField(min_value=1, max_value=1000, default=200,
                                         help_text="chunks (one per node and daemon batch)")
        node = serializers.IntegerField(min_value=1, required=False)

    @extend_schema(parameters=[FilterSerializer], responses=TraceOutputSerializer)
    def get(self, request: Request, job_id: int) -> Response:
        """The runtime's message trace of the job (docs/trace.md), in pages of chunks by
        increasing id, with the summary of all of it."""
        job = job_get(user=request.user, job_id=job_id)  # 404 for jobs the user may not see
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        rows, next_after = trace_rows_after(job=job, **filters.validated_data)
        return Response(TraceOutputSerializer({
            "job": job.id, "trace": job.trace, "start": job_start(job), "columns": list(API_COLUMNS),
            "rows": rows, "next_after": next_after, "summary": trace_summary(job=job)}).data)
