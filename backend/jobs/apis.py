from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from grading.selectors import assignment_harness
from lib.churn_preview import churn_preview
from lib.schema import ERROR_403, ERROR_429
from scenarios.models import Scenario

from .churn import CHURN_SEED
from .history import job_rename, job_rerun
from .models import ChurnEvent
from .selectors import JOB_LIST_LIMIT, job_get, job_list
from .serializers import ChurnEventOutputSerializer, JobDetailOutputSerializer, JobListItemOutputSerializer
from .models import Job
from .services import MAX_CODE_BYTES, MAX_DURATION, MAX_SIM_NODES, job_create, job_stop


class JobListApi(APIView):
    accepts_uploads = True  # code and network files: the larger body cap (lib.parsers)

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "JobCreateInput"

        code = serializers.CharField(allow_blank=False, trim_whitespace=False,
                                     max_length=MAX_CODE_BYTES)
        filename = serializers.RegexField(r"^[A-Za-z0-9_.-]{1,100}$", default="app.lua")
        nodes = serializers.IntegerField(
            min_value=1, max_value=MAX_SIM_NODES, required=False,
            help_text="default: nb_splayds of the code's resource descriptor; at most 1,000 live, 10,000 simulated")
        duration = serializers.IntegerField(
            min_value=1, max_value=MAX_DURATION, required=False,
            help_text="seconds; default: max_time of the descriptor, else 30; at most max_time")
        name = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
        network = serializers.DictField(
            required=False, default=dict,
            help_text="the emulated network (docs/network.md): {net: 'lan' | 'const:50ms' | "
                      "'jitter:50ms:10ms' | 'transit-stub[:T:S]' | 'king' | 'matrix:NAME' | "
                      "'trace:NAME[:PERIOD]', loss: '1%', bandwidth: '10mbit', partitions: "
                      "['10s+20s:0.5'], asymmetric: bool, mtu: int, file_text: the matrix or "
                      "trace file's content}. Delays are one-way.")
        churn = serializers.CharField(
            required=False, allow_blank=True, trim_whitespace=False, default="", max_length=1024 * 1024,
            help_text="a churn scenario (SPLAY's churn language or a trace, docs/churn.md)")
        scenario = serializers.PrimaryKeyRelatedField(
            queryset=Scenario.objects.all(), required=False, allow_null=True, default=None,
            help_text="a library scenario's id (its text is copied into the job)")
        keep_population = serializers.BooleanField(
            required=False, default=False,
            help_text="start a spare in place of every node that dies on its own")
        mode = serializers.ChoiceField(
            choices=Job.Mode.choices, required=False, default=Job.Mode.LIVE,
            help_text="live: on the daemons; sim: every node in one process on a virtual clock "
                      "(docs/simulation.md), duration in virtual seconds")
        trace = serializers.JSONField(
            required=False, default=None,
            help_text='the runtime\'s message trace (docs/trace.md): true, false or {"max_events": N} '
                      '(1..1,000,000 rows listed per node, default 20,000); default: the descriptor\'s '
                      '`trace`, else off')
        assignment = serializers.IntegerField(
            required=False, allow_null=True, default=None,
            help_text="an assignment's id: its harness runs with the code (simulated jobs only), so the "
                      "trace holds the harness's operations (one lookup, one broadcast) to follow")
        seed = serializers.IntegerField(
            min_value=0, max_value=2 ** 31 - 2, required=False, allow_null=True, default=None,
            help_text="fixes every random draw of a simulated run (default 1): same code, seed and "
                      "scenario, same output")

    @extend_schema(responses=JobListItemOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        """Your jobs and your courses' students' when you are their instructor or TA, newest
        first, without their code (GET /api/jobs/<id>/ has it)."""
        jobs = job_list(user=request.user).order_by("-id")[:JOB_LIST_LIMIT]
        return Response(JobListItemOutputSerializer(jobs, many=True).data)

    @extend_schema(request=InputSerializer, responses={201: JobDetailOutputSerializer, 429: ERROR_429})
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        assignment_id = values.pop("assignment")
        if assignment_id is not None:
            values["harness"], values["harness_of"] = assignment_harness(user=request.user, assignment_id=assignment_id)
        job = job_create(owner=request.user, **values)
        job = job_get(user=request.user, job_id=job.id)
        return Response(JobDetailOutputSerializer(job).data, status=status.HTTP_201_CREATED)


class JobDetailApi(APIView):
    class RenameSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=200, allow_blank=True, help_text="the run's name in the history")

    @extend_schema(responses=JobDetailOutputSerializer)
    def get(self, request: Request, job_id: int) -> Response:
        return Response(JobDetailOutputSerializer(job_get(user=request.user, job_id=job_id)).data)

    @extend_schema(request=RenameSerializer, responses={200: JobDetailOutputSerializer, 403: ERROR_403})
    def patch(self, request: Request, job_id: int) -> Response:
        """Name a run (its owner only)."""
        data = self.RenameSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = job_rename(job=job_get(user=request.user, job_id=job_id), user=request.user,
                         name=data.validated_data["name"])
        return Response(JobDetailOutputSerializer(job_get(user=request.user, job_id=job.id)).data)


class JobRerunApi(APIView):
    @extend_schema(request=None, responses={201: JobDetailOutputSerializer, 429: ERROR_429})
    def post(self, request: Request, job_id: int) -> Response:
        """Run a job again as it was: a new job of yours with its code and every setting."""
        job = job_rerun(job=job_get(user=request.user, job_id=job_id), user=request.user)
        return Response(JobDetailOutputSerializer(job_get(user=request.user, job_id=job.id)).data,
                        status=status.HTTP_201_CREATED)


class JobStopApi(APIView):
    @extend_schema(request=None, responses=JobDetailOutputSerializer)
    def post(self, request: Request, job_id: int) -> Response:
        job_get(user=request.user, job_id=job_id)  # 404 if not visible
        job_stop(job_id=job_id, user=request.user)
        return Response(JobDetailOutputSerializer(job_get(user=request.user, job_id=job_id)).data)


class JobChurnApi(APIView):
    """The planned population of a churn job's scenario and its nodes' actual ups and downs;
    `?after=<event id>`: only the events after it (no plan)."""

    @extend_schema(responses=dict)
    def get(self, request: Request, job_id: int) -> Response:
        job = job_get(user=request.user, job_id=job_id)
        if not job.has_churn:
            raise NotFound("this job has no churn scenario")
        events = ChurnEvent.objects.filter(job=job).order_by("id")
        after = request.query_params.get("after")
        if after is not None:  # polling (the CLI's --follow): only newer events, no plan
            if not after.isdigit():
                raise ValidationError({"after": ["expected an event id"]})
            return Response({"epoch": job.churn_epoch, "events": ChurnEventOutputSerializer(
                events.filter(id__gt=int(after)), many=True).data})
        return Response({"planned": churn_preview(job.churn, seed=CHURN_SEED), "epoch": job.churn_epoch,
                         "events": ChurnEventOutputSerializer(events, many=True).data})
