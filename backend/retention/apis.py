"""GET /api/jobs/<id>/archive/ (the job's .zip, streamed) and GET/PATCH
/api/jobs/<id>/retention/ (when its data goes, what was pruned, "keep"). Both see a job exactly
when jobs.selectors.job_get does (its owner, the course's staff): anyone else gets 404."""
from __future__ import annotations

from django.http import StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from jobs.selectors import job_get

from .archive import archive_stream
from .selectors import JobRetentionView, job_retention
from .services import job_keep_set


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()


ERRORS = {
    401: OpenApiResponse(ErrorSerializer, description="not signed in"),
    404: OpenApiResponse(ErrorSerializer, description="no such job, or not yours to see"),
}


class JobArchiveApi(APIView):
    def perform_content_negotiation(self, request: Request, force: bool = False):
        # The archive is no DRF rendering: whatever the client accepts (application/zip, */*),
        # an error is sent as JSON rather than refused with 406.
        return JSONRenderer(), JSONRenderer.media_type

    @extend_schema(
        summary="Download a job's archive",
        description="A .zip of the job (job.json, code, logs as text and JSONL, metrics, trace, probes), "
                    "streamed as it is written. Data already pruned by retention is absent; README.txt "
                    "then says what was pruned and when.",
        responses={(200, "application/zip"): OpenApiResponse(OpenApiTypes.BINARY, description="the archive"),
                   **{(code, "application/json"): answer for code, answer in ERRORS.items()}})
    def get(self, request: Request, job_id: int) -> StreamingHttpResponse:
        job = job_get(user=request.user, job_id=job_id)
        made = timezone.now().strftime("%Y-%m-%d %H:%M UTC")
        response = StreamingHttpResponse(archive_stream(job, made=made), content_type="application/zip")
        response["Content-Disposition"] = f'attachment; filename="job-{job.id}.zip"'
        response["Cache-Control"] = "no-store"
        return response


class RetentionOutputSerializer(serializers.Serializer):
    job = serializers.IntegerField(source="job.id")
    days = serializers.IntegerField(source="policy.days", help_text="kept this many days after the job ended (0: no age limit)")
    max_mb = serializers.IntegerField(source="policy.max_mb", help_text="MB kept per job, oldest pruned first (0: no limit)")
    policy_source = serializers.CharField(source="policy.source", help_text="the course(s) whose rule applies, or 'service default'")
    keep = serializers.BooleanField(help_text="staff marked the job keep: never pruned")
    may_keep = serializers.BooleanField(help_text="whether you may change keep")
    prune_after = serializers.DateTimeField(allow_null=True, help_text="when the age rule prunes the data; null: not planned")
    log_bytes = serializers.IntegerField(source="row.log_bytes", default=0)
    metric_bytes = serializers.IntegerField(source="row.metric_bytes", default=0)
    trace_bytes = serializers.IntegerField(source="row.trace_bytes", default=0)
    measured_at = serializers.DateTimeField(source="row.measured_at", default=None, allow_null=True)
    pruned_at = serializers.DateTimeField(source="row.pruned_at", default=None, allow_null=True)
    pruned = serializers.DictField(child=serializers.IntegerField(), source="row.pruned", default=dict,
                                   help_text="rows pruned so far: log_lines, metric_chunks, trace_chunks, probe_chunks")
    pruned_note = serializers.CharField(source="row.pruned_note", default="",
                                        help_text="why data is gone, for the job page; empty when nothing was pruned")


class JobRetentionApi(APIView):
    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "JobRetentionUpdateInput"

        keep = serializers.BooleanField(help_text="true: no retention rule prunes this job")

    def _out(self, view: JobRetentionView) -> dict:
        return RetentionOutputSerializer(view).data

    @extend_schema(summary="A job's retention", responses={200: RetentionOutputSerializer, **ERRORS})
    def get(self, request: Request, job_id: int) -> Response:
        job = job_get(user=request.user, job_id=job_id)
        return Response(self._out(job_retention(user=request.user, job=job)))

    @extend_schema(
        summary="Keep a job (course staff)", request=InputSerializer,
        responses={200: RetentionOutputSerializer,
                   400: OpenApiResponse(description="invalid body, e.g. {\"keep\": [\"Must be a valid boolean.\"]}"),
                   403: OpenApiResponse(ErrorSerializer, description="not an instructor or TA of the owner's course"),
                   **ERRORS})
    def patch(self, request: Request, job_id: int) -> Response:
        job = job_get(user=request.user, job_id=job_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job_keep_set(user=request.user, job=job, keep=data.validated_data["keep"])
        return Response(self._out(job_retention(user=request.user, job=job)))
