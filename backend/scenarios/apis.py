from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from courses.selectors import staff_course_ids, user_is_operator
from lib.churn_preview import churn_preview, churn_trace

from .models import Scenario
from .services import scenario_save


class WritesScenariosOrReads(BasePermission):
    """Everyone signed in reads the library and previews; instructors and TAs of some course
    (and site operators) add to it; a scenario is changed or deleted by its author or an
    operator only (_scenario_for_write): the library is shared by every course, so one course's
    staff must not rewrite another's."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        user = request.user
        if not (user and user.is_authenticated):
            return False
        if request.method in SAFE_METHODS or getattr(view, "preview_only", False):
            return True
        return user_is_operator(user) or staff_course_ids(user=user).exists()


def _scenario_for_write(request: Request, scenario_id: int) -> Scenario:
    scenario = get_object_or_404(Scenario, id=scenario_id)
    if scenario.owner_id != request.user.id and not user_is_operator(request.user):
        raise PermissionDenied("only its author or a site operator may change this scenario")
    return scenario


class ScenarioOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    description = serializers.CharField()
    text = serializers.CharField()
    owner = serializers.CharField(source="owner.username")
    updated_at = serializers.DateTimeField()


class ScenarioInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    description = serializers.CharField(allow_blank=True, required=False, default="")
    text = serializers.CharField(trim_whitespace=False)


class ChurnErrorOutputSerializer(serializers.Serializer):
    line = serializers.IntegerField()
    column = serializers.IntegerField(help_text="0: the whole line")
    message = serializers.CharField()


class ChurnPreviewOutputSerializer(serializers.Serializer):
    """A bad text: `errors` only (with `kind` when it could be told); a good one: the rest."""
    kind = serializers.ChoiceField(choices=["script", "trace", "fta"], required=False)
    errors = ChurnErrorOutputSerializer(many=True)
    warnings = serializers.ListField(child=serializers.DictField(), required=False,
                                     help_text="[{line, message}]: joins or leaves skipped, and why")
    nodes = serializers.IntegerField(required=False, help_text="distinct nodes the scenario uses")
    duration = serializers.FloatField(required=False, help_text="seconds")
    end = serializers.FloatField(required=False, allow_null=True, help_text="its `stop`, if any")
    population = serializers.ListField(child=serializers.ListField(child=serializers.FloatField()),
                                       required=False, help_text="[[t, nodes up], ...] at each change")
    bin = serializers.FloatField(required=False, help_text="seconds per bin of `bins`")
    bins = serializers.ListField(child=serializers.ListField(child=serializers.FloatField()), required=False,
                                 help_text="[[bin start, joins, leaves], ...]")
    network = serializers.ListField(child=serializers.DictField(), required=False,
                                    help_text="[{t, text}]: partitions, heals, loss and latency changes")


class ChurnTraceOutputSerializer(serializers.Serializer):
    """A bad text: `errors` only, as the preview; a good one: the trace."""
    kind = serializers.ChoiceField(choices=["script", "trace", "fta"], required=False)
    errors = ChurnErrorOutputSerializer(many=True)
    trace = serializers.CharField(required=False, help_text="SPLAY's trace format: a line per node")
    nodes = serializers.IntegerField(required=False)
    dropped_network = serializers.IntegerField(required=False,
                                               help_text="network statements a trace cannot carry")


class ChurnPreviewApi(APIView):
    """POST {text, seed?} → errors, or the planned population and joins/leaves per bin."""
    permission_classes = [WritesScenariosOrReads]
    preview_only = True

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "ChurnPreviewInput"

        text = serializers.CharField(allow_blank=True, trim_whitespace=False)
        seed = serializers.IntegerField(default=1, min_value=0)

    @extend_schema(request=InputSerializer, responses=ChurnPreviewOutputSerializer)
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(churn_preview(data.validated_data["text"], seed=data.validated_data["seed"]))


class ChurnTraceApi(APIView):
    """POST {text, seed?, start?, end?, speedup?, amplitude?} → the scenario as SPLAY's trace
    format after the trace tools: 200 {trace, nodes, dropped_network}, or 200 {errors} for a bad
    text (as the preview), or 400 naming a bad setting."""
    permission_classes = [WritesScenariosOrReads]
    preview_only = True

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "ChurnTraceInput"

        text = serializers.CharField(trim_whitespace=False)
        seed = serializers.IntegerField(default=1, min_value=0)
        start = serializers.FloatField(required=False, allow_null=True, default=None, min_value=0)
        end = serializers.FloatField(required=False, allow_null=True, default=None, min_value=0)
        speedup = serializers.FloatField(required=False, allow_null=True, default=None)
        amplitude = serializers.FloatField(required=False, allow_null=True, default=None)

        def validate_speedup(self, value: float | None) -> float | None:
            if value is not None and not 0 < value <= 1000:
                raise serializers.ValidationError("the speed-up factor must be above 0 and at most 1000")
            return value

        def validate_amplitude(self, value: float | None) -> float | None:
            if value is not None and not 0 < value <= 100:
                raise serializers.ValidationError("the amplitude must be above 0 and at most 100")
            return value

    @extend_schema(request=InputSerializer, responses=ChurnTraceOutputSerializer)
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        out = churn_trace(**data.validated_data)
        if "problem" in out:
            return Response({"detail": out["problem"]}, status=400)
        return Response(out)


class ScenarioListApi(APIView):
    permission_classes = [WritesScenariosOrReads]

    @extend_schema(responses=ScenarioOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(ScenarioOutputSerializer(Scenario.objects.select_related("owner"), many=True).data)

    @extend_schema(request=ScenarioInputSerializer, responses={201: ScenarioOutputSerializer})
    def post(self, request: Request) -> Response:
        data = ScenarioInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        scenario = scenario_save(owner=request.user, **data.validated_data)
        return Response(ScenarioOutputSerializer(scenario).data, status=201)


class ScenarioDetailApi(APIView):
    permission_classes = [WritesScenariosOrReads]

    @extend_schema(responses=ScenarioOutputSerializer)
    def get(self, request: Request, scenario_id: int) -> Response:
        return Response(ScenarioOutputSerializer(get_object_or_404(Scenario, id=scenario_id)).data)

    @extend_schema(request=ScenarioInputSerializer, responses=ScenarioOutputSerializer)
    def put(self, request: Request, scenario_id: int) -> Response:
        scenario = _scenario_for_write(request, scenario_id)
        data = ScenarioInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        scenario = scenario_save(owner=scenario.owner, scenario=scenario, **data.validated_data)
        return Response(ScenarioOutputSerializer(scenario).data)

    @extend_schema(responses={204: None})
    def delete(self, request: Request, scenario_id: int) -> Response:
        _scenario_for_write(request, scenario_id).delete()
        return Response(status=204)
