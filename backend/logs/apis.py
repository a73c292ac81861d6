from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from jobs.selectors import job_get

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
        job_get(user=request.user, job_id=job_id)  # 404 for jobs the user may not see
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        after = filters.validated_data["after"]
        lines = log_lines_after(job_id=job_id, **filters.validated_data)
        return Response(LogsOutputSerializer(
            {"lines": lines, "next_after": lines[-1].id if lines else after}).data)
