from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from jobs.selectors import job_get
from lib.schema import ERROR_401, ERROR_404

from .download import FORMATS, log_file_chunks, log_file_stream
from .models import LogLine
from .selectors import log_lines_after


class LogLineOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    node = serializers.IntegerField()
    seq = serializers.IntegerField()
    t = serializers.FloatField()
    level = serializers.CharField()
    text = serializers.CharField()


class LogsOutputSerializer(serializers.Serializer):
    lines = LogLineOutputSerializer(many=True)
    next_after = serializers.IntegerField(help_text="pass as `after` to get the following lines")


class JobLogsApi(APIView):
    class FilterSerializer(serializers.Serializer):
        after = serializers.IntegerField(min_value=0, default=0)
        node = serializers.IntegerField(min_value=1, required=False)
        level = serializers.ChoiceField(choices=LogLine.Level.values, required=False,
                                        help_text="only this level (metric records: /api/jobs/<id>/metrics/)")
        limit = serializers.IntegerField(min_value=1, max_value=1000, default=1000)

    @extend_schema(parameters=[FilterSerializer], responses=LogsOutputSerializer)
    def get(self, request: Request, job_id: int) -> Response:
        job_get(user=request.user, job_id=job_id, instances=False)  # 404 for jobs the user may not see
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        after = filters.validated_data["after"]
        lines = log_lines_after(job_id=job_id, **filters.validated_data)
        return Response(LogsOutputSerializer(
            {"lines": lines, "next_after": lines[-1].id if lines else after}).data)


FORMAT_CHOICES = ", ".join(FORMATS)


class JobLogsDownloadApi(APIView):
    class FilterSerializer(serializers.Serializer):
        class Meta:
            ref_name = "JobLogsDownloadFilter"

        format = serializers.ChoiceField(
            choices=list(FORMATS), default="jsonl",
            error_messages={"invalid_choice": f'"{{input}}" is not a log format: use one of {FORMAT_CHOICES}.'},
            help_text='jsonl: {"t", "node", "seq", "level", "text"} per line; '
                      "text: `t=12.345 node 3 [level] text` per line")
        node = serializers.IntegerField(min_value=1, required=False, help_text="only this node")
        level = serializers.ChoiceField(choices=LogLine.Level.values, required=False, help_text="only this level")
        q = serializers.CharField(max_length=200, required=False, allow_blank=True, trim_whitespace=False,
                                  help_text="only lines whose text holds this, ignoring case")

    def perform_content_negotiation(self, request: Request, force: bool = False):
        # `format` names the file's format here, not a DRF renderer; errors are JSON whatever
        # the browser accepts.
        return JSONRenderer(), JSONRenderer.media_type

    @extend_schema(
        summary="Download a job's whole log",
        description="Every stored line of the job (or those matching node, level and q), ordered by "
                    "(t, node, seq), streamed as an attachment job-<id>-logs.jsonl or job-<id>-logs.txt. "
                    "t is seconds since the job's start (virtual time in a simulated run).",
        parameters=[FilterSerializer],
        responses={
            (200, "application/x-ndjson"): OpenApiResponse(OpenApiTypes.BINARY, description="format=jsonl"),
            (200, "text/plain"): OpenApiResponse(OpenApiTypes.BINARY, description="format=text"),
            (400, "application/json"): OpenApiResponse(
                OpenApiTypes.OBJECT, description=f"a bad filter: an unknown format (accepted: {FORMAT_CHOICES}) "
                                                 "gives {\"format\": [\"... is not a log format: use one of "
                                                 f"{FORMAT_CHOICES}.\"]}}"),
            (401, "application/json"): ERROR_401,
            (404, "application/json"): ERROR_404,
        })
    def get(self, request: Request, job_id: int) -> StreamingHttpResponse:
        job = job_get(user=request.user, job_id=job_id)  # 404 for jobs the user may not see
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        fmt = filters.validated_data.pop("format")
        extension, content_type = FORMATS[fmt]
        response = StreamingHttpResponse(log_file_stream(log_file_chunks(job, fmt=fmt, **filters.validated_data)),
                                         content_type=content_type)
        response["Content-Disposition"] = f'attachment; filename="job-{job.id}-logs.{extension}"'
        response["Cache-Control"] = "no-store"
        return response
