from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from .selectors import workspace_get, workspace_get_for_write, workspace_list
from .services import workspace_default_ensure, workspace_files_replace, workspace_get_or_create


class FileSerializer(serializers.Serializer):
    path = serializers.CharField(max_length=200)
    content = serializers.CharField(allow_blank=True, trim_whitespace=False)


class WorkspaceOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    owner = serializers.CharField(source="owner.username")
    updated_at = serializers.DateTimeField()
    files = FileSerializer(many=True, source="files.all")


class WorkspaceListApi(APIView):
    accepts_uploads = True  # code files: the larger body cap (lib.parsers)

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "WorkspaceCreateInput"

        name = serializers.CharField(max_length=100)
        files = FileSerializer(many=True, required=False, default=list,
                               help_text="the files of a new workspace (ignored when it exists)")

    @extend_schema(responses=WorkspaceOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        if not request.user.workspaces.exists():
            workspace_default_ensure(user=request.user)
        # Your own only, the default first: staff open a student's workspace by its id
        # (the workspace page edits the first one listed)
        own = workspace_list(user=request.user).filter(owner=request.user).order_by("id")
        return Response(WorkspaceOutputSerializer(own, many=True).data)

    @extend_schema(request=InputSerializer, responses={201: WorkspaceOutputSerializer, 200: WorkspaceOutputSerializer})
    def post(self, request: Request) -> Response:
        """Get or create your workspace of this name: 201 created with `files`, 200 when you
        have one already (returned unchanged)."""
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        workspace, created = workspace_get_or_create(user=request.user, **data.validated_data)
        workspace = workspace_get(user=request.user, workspace_id=workspace.id)  # fresh files
        return Response(WorkspaceOutputSerializer(workspace).data,
                        status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class WorkspaceDetailApi(APIView):
    accepts_uploads = True  # code files: the larger body cap (lib.parsers)

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "WorkspaceUpdateInput"

        name = serializers.CharField(max_length=100, required=False)
        files = FileSerializer(many=True)

    @extend_schema(responses=WorkspaceOutputSerializer)
    def get(self, request: Request, workspace_id: int) -> Response:
        workspace = workspace_get(user=request.user, workspace_id=workspace_id)
        return Response(WorkspaceOutputSerializer(workspace).data)

    @extend_schema(request=InputSerializer, responses=WorkspaceOutputSerializer)
    def put(self, request: Request, workspace_id: int) -> Response:
        """The owner's only (staff of the owner's course read it: 403)."""
        workspace = workspace_get_for_write(user=request.user, workspace_id=workspace_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        workspace = workspace_files_replace(workspace=workspace, **data.validated_data)
        workspace = workspace_get(user=request.user, workspace_id=workspace.id)  # fresh files
        return Response(WorkspaceOutputSerializer(workspace).data)
