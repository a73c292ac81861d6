from django.conf import settings
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from daemons.selectors import daemon_list
from lib.attempts import AttemptLimit, attempt_failed, attempts_check, client_ip
from lib.errors import ApplicationError
from lib.schema import ERROR_429
from retention.selectors import course_disk_use

from .models import Course
from .selectors import course_access, course_access_instructor, course_list
from .services import course_create, course_join, course_join_code_regenerate, course_update


class DaemonRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class DiskUseSerializer(serializers.Serializer):
    log_bytes = serializers.IntegerField()
    metric_bytes = serializers.IntegerField()
    trace_bytes = serializers.IntegerField(help_text="trace and probe chunks")
    total_bytes = serializers.IntegerField()
    jobs = serializers.IntegerField(help_text="the students' jobs")
    measured_at = serializers.DateTimeField(allow_null=True,
                                            help_text="the latest measurement (retention sweep); null: none yet")


class CourseOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    slug = serializers.CharField()
    role = serializers.CharField(source="my_role", help_text="yours in this course: student, ta or instructor")
    join_code = serializers.SerializerMethodField(help_text="instructors and TAs only (null for students)")
    max_nodes_per_job = serializers.IntegerField()
    max_concurrent_jobs = serializers.IntegerField()
    minutes_per_day_per_student = serializers.IntegerField()
    late_penalty_percent = serializers.IntegerField(help_text="of the score, per started day late")
    max_late_days = serializers.IntegerField(help_text="after these, students' submissions are refused")
    daemons = DaemonRefSerializer(many=True, source="daemons.all",
                                  help_text="the course's daemons (empty: any); scheduling does not use it yet")

    retention_days = serializers.IntegerField(
        help_text="days a job's logs, metrics and traces are kept after it ended (0: no age limit)")
    retention_max_mb_per_job = serializers.IntegerField(
        help_text="MB of logs, metrics and traces kept per ended job, oldest pruned first (0: no limit)")
    disk_use = serializers.SerializerMethodField(
        help_text="instructors and TAs only (null for students): what the students' jobs store")

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_join_code(self, course: Course) -> str | None:
        return course.join_code if course.my_role in ("instructor", "ta") else None

    @extend_schema_field(DiskUseSerializer(allow_null=True))
    def get_disk_use(self, course: Course) -> dict | None:
        # Only the course's own page asks for it (a sum over the students' jobs), never the list.
        if not self.context.get("disk_use") or course.my_role not in ("instructor", "ta"):
            return None
        return dict(DiskUseSerializer(course_disk_use(course=course)).data)


def _course_out(request: Request, course_id: int) -> dict:
    return CourseOutputSerializer(course_access(user=request.user, course_id=course_id).course,
                                  context={"disk_use": True}).data


class CourseListApi(APIView):
    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "CourseCreateInput"

        name = serializers.CharField(max_length=200)
        slug = serializers.SlugField(max_length=50)

    @extend_schema(responses=CourseOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(CourseOutputSerializer(course_list(user=request.user), many=True).data)

    @extend_schema(request=InputSerializer, responses={201: CourseOutputSerializer})
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        course = course_create(user=request.user, **data.validated_data)
        return Response(_course_out(request, course.id), status=status.HTTP_201_CREATED)


def _join_limits(request: Request) -> list[AttemptLimit]:
    window = settings.SPLAYLAB_ATTEMPT_WINDOW
    return [AttemptLimit("join", f"user:{request.user.id}", settings.SPLAYLAB_JOIN_FAILURES_PER_USER,
                         window, "wrong join codes from your account"),
            AttemptLimit("join", f"ip:{client_ip(request)}", settings.SPLAYLAB_JOIN_FAILURES_PER_IP,
                         window, "wrong join codes from your address")]


class CourseJoinApi(APIView):
    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "CourseJoinInput"

        code = serializers.CharField(max_length=64)

    @extend_schema(request=InputSerializer,
                   responses={201: CourseOutputSerializer, 200: CourseOutputSerializer, 429: ERROR_429})
    def post(self, request: Request) -> Response:
        """201: enrolled as a student; 200: already a member (role unchanged)."""
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        limits = _join_limits(request)
        attempts_check(limits)  # join codes are guessable secrets: failed tries are counted
        try:
            membership, created = course_join(user=request.user, code=data.validated_data["code"])
        except ApplicationError:
            attempt_failed(limits)
            raise
        return Response(_course_out(request, membership.course_id),
                        status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class CourseDetailApi(APIView):
    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "CourseUpdateInput"

        name = serializers.CharField(max_length=200, required=False)
        max_nodes_per_job = serializers.IntegerField(min_value=1, max_value=10_000, required=False)
        max_concurrent_jobs = serializers.IntegerField(min_value=1, max_value=1000, required=False)
        minutes_per_day_per_student = serializers.IntegerField(min_value=0, max_value=24 * 60, required=False)
        late_penalty_percent = serializers.IntegerField(min_value=0, max_value=100, required=False)
        max_late_days = serializers.IntegerField(min_value=0, max_value=365, required=False)
        daemons = serializers.ListField(child=serializers.IntegerField(), required=False,
                                        help_text="daemon ids; [] for any daemon")
        retention_days = serializers.IntegerField(min_value=0, max_value=3650, required=False,
                                                  help_text="0: no age limit")
        retention_max_mb_per_job = serializers.IntegerField(min_value=0, max_value=100_000, required=False,
                                                            help_text="0: no size limit")

    @extend_schema(responses=CourseOutputSerializer)
    def get(self, request: Request, course_id: int) -> Response:
        return Response(_course_out(request, course_id))

    @extend_schema(request=InputSerializer, responses=CourseOutputSerializer)
    def patch(self, request: Request, course_id: int) -> Response:
        access = course_access_instructor(user=request.user, course_id=course_id)
        data = self.InputSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        _daemons_added_check(request, access.course, data.validated_data.get("daemons"))
        course_update(course=access.course, **data.validated_data)
        return Response(_course_out(request, course_id))


def _daemons_added_check(request: Request, course: Course, daemons: list[int] | None) -> None:
    """A course's instructors manage its daemons, so linking one is a right over it: only daemons
    the user manages already may be added (an operator links pool daemons)."""
    if daemons is None:
        return
    added = set(daemons) - set(course.daemons.values_list("id", flat=True))
    managed = set(daemon_list(user=request.user).filter(id__in=added).values_list("id", flat=True))
    refused = sorted(added - managed)
    if refused:
        raise serializers.ValidationError({"daemons": [
            f"no daemon with id {', '.join(map(str, refused))} among those you manage"]})


class CourseJoinCodeApi(APIView):
    @extend_schema(request=None, responses=CourseOutputSerializer)
    def post(self, request: Request, course_id: int) -> Response:
        """A new join code (instructors); the old one stops working."""
        access = course_access_instructor(user=request.user, course_id=course_id)
        course_join_code_regenerate(course=access.course)
        return Response(_course_out(request, course_id))
