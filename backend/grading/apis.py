"""Thin DRF views: course access (courses.selectors) → one service or selector → output.

Not in the course: 404; in it without the role: 403 (gradebook, regrade, edits)."""
from __future__ import annotations

import csv
import io

from django.http import Http404, HttpResponse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from courses.selectors import course_access, course_access_instructor, course_access_staff
from lib.schema import ERROR_429
from lti.selectors import gradebook_lms  # each cell's passback state

from .selectors import (FinalGrade, assignment_distribution, assignment_get, assignment_list, check_names,
                        check_points, final_grades, gradebook_get, latest_submissions, submission_get,
                        submission_list, submission_view)
from .models import RegradeRequest
from .regrade_requests import (MAX_MESSAGE, course_requests, regrade_request_answer, regrade_request_create,
                               request_data)
from .serializers import (AssignmentListItemSerializer, RegradeRequestOutputSerializer,
                          SubmissionDetailOutputSerializer, SubmissionOutputSerializer, assignment_detail_data,
                          gradebook_cell_data, gradebook_data, submission_data)
from .services import (MAX_SOURCE_BYTES, assignment_regrade, assignment_update, grade_override_delete,
                       grade_override_set, submission_create, submission_regrade)


class AssignmentListApi(APIView):
    @extend_schema(responses=AssignmentListItemSerializer(many=True))
    def get(self, request: Request, course_id: int) -> Response:
        access = course_access(user=request.user, course_id=course_id)
        rows = list(assignment_list(access=access))
        latest = latest_submissions(access=access, user=request.user, assignments=rows)
        grades = {} if access.is_staff else final_grades(access=access, student=request.user, assignments=rows)
        return Response(AssignmentListItemSerializer(rows, many=True, context={"latest": latest, "grades": grades}).data)


class AssignmentDetailApi(APIView):
    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "AssignmentUpdateInput"

        title = serializers.CharField(max_length=200, required=False)
        summary = serializers.CharField(max_length=500, required=False, allow_blank=True)
        handout = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
        starter = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
        reference = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
        harness = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
        spec = serializers.DictField(required=False, help_text="assignment.yaml as JSON (validated by the grader)")
        files = serializers.DictField(child=serializers.CharField(allow_blank=True, trim_whitespace=False),
                                      required=False)
        deadline = serializers.DateTimeField(required=False, allow_null=True)
        published = serializers.BooleanField(required=False)

    @extend_schema(responses=dict)
    def get(self, request: Request, course_id: int, slug: str) -> Response:
        """Students: published assignments only, without reference, files or hidden checks."""
        access = course_access(user=request.user, course_id=course_id)
        return Response(assignment_detail_data(assignment_get(access=access, slug=slug), access=access))

    @extend_schema(request=InputSerializer, responses=dict)
    def patch(self, request: Request, course_id: int, slug: str) -> Response:
        access = course_access_instructor(user=request.user, course_id=course_id)
        data = self.InputSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        assignment = assignment_update(assignment=assignment_get(access=access, slug=slug), **data.validated_data)
        return Response(assignment_detail_data(assignment, access=access))


class AssignmentRegradeApi(APIView):
    @extend_schema(request=None, responses=dict)
    def post(self, request: Request, course_id: int, slug: str) -> Response:
        """Grade every submission again (instructors and TAs); {"queued": n}."""
        access = course_access_staff(user=request.user, course_id=course_id)
        queued = assignment_regrade(assignment=assignment_get(access=access, slug=slug))
        return Response({"queued": queued}, status=status.HTTP_202_ACCEPTED)


class AssignmentDistributionApi(APIView):
    @extend_schema(responses=dict)
    def get(self, request: Request, course_id: int, slug: str) -> Response:
        """The class's score distribution per check, hidden checks too (instructors and TAs)."""
        access = course_access_staff(user=request.user, course_id=course_id)
        return Response(assignment_distribution(assignment=assignment_get(access=access, slug=slug)))


class SubmissionListApi(APIView):
    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "SubmissionCreateInput"

        source = serializers.CharField(trim_whitespace=False, max_length=MAX_SOURCE_BYTES,
                                       help_text="the app.lua to grade; never changes afterwards")

    @extend_schema(parameters=[OpenApiParameter("student", int, description="instructors and TAs: one student's")],
                   responses=SubmissionOutputSerializer(many=True))
    def get(self, request: Request, course_id: int, slug: str) -> Response:
        """Students: their own submissions; instructors and TAs: everyone's."""
        access = course_access(user=request.user, course_id=course_id)
        assignment = assignment_get(access=access, slug=slug)
        student = request.query_params.get("student")
        if student is not None and not student.isdigit():
            raise serializers.ValidationError({"student": ["expected a user id"]})
        qs = submission_list(access=access, user=request.user, assignment=assignment,
                             student_id=int(student) if student else None)
        return Response([submission_data(submission_view(s, access=access), access=access, detail=False)
                         for s in qs])

    @extend_schema(request=InputSerializer, responses={201: SubmissionDetailOutputSerializer, 429: ERROR_429})
    def post(self, request: Request, course_id: int, slug: str) -> Response:
        access = course_access(user=request.user, course_id=course_id)
        assignment = assignment_get(access=access, slug=slug)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        submission = submission_create(assignment=assignment, student=request.user, **data.validated_data)
        return Response(_detail(request, submission.id), status=status.HTTP_201_CREATED)


class SubmissionDetailApi(APIView):
    @extend_schema(responses=SubmissionDetailOutputSerializer)
    def get(self, request: Request, submission_id: int) -> Response:
        return Response(_detail(request, submission_id))


def _detail(request: Request, submission_id: int) -> dict:
    """A submission as the user may see it, with its student's final grade for the assignment."""
    submission, access = submission_get(user=request.user, submission_id=submission_id)
    grade: FinalGrade | None = final_grades(access=access, student=submission.student,
                                            assignments=[submission.assignment]).get(submission.assignment_id)
    return submission_data(submission_view(submission, access=access), access=access, detail=True, final_grade=grade)


class SubmissionRegradeApi(APIView):
    @extend_schema(request=None, responses=SubmissionDetailOutputSerializer)
    def post(self, request: Request, submission_id: int) -> Response:
        submission, _ = submission_get(user=request.user, submission_id=submission_id)
        course_access_staff(user=request.user, course_id=submission.assignment.course_id)
        submission_regrade(submission_id=submission.id)
        return Response(_detail(request, submission_id), status=status.HTTP_202_ACCEPTED)


class GradebookApi(APIView):
    @extend_schema(responses=dict)
    def get(self, request: Request, course_id: int) -> Response:
        """Students × assignments (instructors and TAs): each cell's score is the override's if
        any, else the latest graded submission's final score."""
        access = course_access_staff(user=request.user, course_id=course_id)
        return Response(gradebook_lms(gradebook_data(gradebook_get(course=access.course)), access.course))


class GradebookCsvApi(APIView):
    @extend_schema(responses={(200, "text/csv"): str})
    def get(self, request: Request, course_id: int) -> HttpResponse:
        """One row per student: username, name, email, one column per assignment (slug: the
        gradebook's score), then one per check of each assignment ("slug: check name": the points
        of the submission the gradebook counts; hidden checks too)."""
        access = course_access_staff(user=request.user, course_id=course_id)
        book = gradebook_get(course=access.course)
        checks = [(a, name) for a in book.assignments for name in check_names(a)]
        points = check_points(book)
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["username", "name", "email", *[a.slug for a in book.assignments],
                         *[_csv_text(f"{a.slug}: {name}") for a, name in checks]])
        for student, cells in book.rows:
            per_check = [points.get((a.id, student.id), {}).get(name) for a, name in checks]
            writer.writerow([_csv_text(student.username), _csv_text(student.get_full_name()),
                             _csv_text(student.email), *["" if c.score is None else f"{c.score:g}" for c in cells],
                             *["" if p is None else f"{p:g}" for p in per_check]])
        response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{access.course.slug}-gradebook.csv"'
        return response


def _csv_text(value: str) -> str:
    """A spreadsheet must not read a name as a formula (=, +, -, @ first)."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


class GradeOverrideApi(APIView):
    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "GradeOverrideInput"

        score = serializers.FloatField(min_value=0, max_value=100, allow_null=True,
                                       help_text="replaces the submissions' score; null: comment only")
        comment = serializers.CharField(allow_blank=True, required=False, default="", max_length=10_000)

    def _target(self, request: Request, course_id: int, slug: str, student_id: int) -> tuple:
        access = course_access_staff(user=request.user, course_id=course_id)
        assignment = assignment_get(access=access, slug=slug)
        student = User.objects.filter(id=student_id, memberships__course=access.course,
                                      memberships__role="student").first()
        if student is None:
            raise Http404("no such student in this course")
        return access, assignment, student

    @extend_schema(request=InputSerializer, responses=dict)
    def put(self, request: Request, course_id: int, slug: str, student_id: int) -> Response:
        access, assignment, student = self._target(request, course_id, slug, student_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        grade_override_set(assignment=assignment, student=student, by=request.user, **data.validated_data)
        book = gradebook_get(course=access.course, student_id=student.id)
        cell = next(c for c in book.rows[0][1] if c.assignment.id == assignment.id)
        return Response(gradebook_cell_data(cell))

    @extend_schema(request=None, responses={204: None})
    def delete(self, request: Request, course_id: int, slug: str, student_id: int) -> Response:
        _, assignment, student = self._target(request, course_id, slug, student_id)
        grade_override_delete(assignment=assignment, student=student)
        return Response(status=status.HTTP_204_NO_CONTENT)


# ---- regrade requests ---------------------------------------------------------------------

class SubmissionRegradeRequestsApi(APIView):
    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "RegradeRequestInput"

        message = serializers.CharField(max_length=MAX_MESSAGE, help_text="what should be looked at again, and why")

    @extend_schema(responses=RegradeRequestOutputSerializer(many=True))
    def get(self, request: Request, submission_id: int) -> Response:
        """The submission's regrade requests (its student and the course's staff)."""
        submission, _ = submission_get(user=request.user, submission_id=submission_id)
        rows = submission.regrade_requests.select_related("student", "answered_by", "submission__assignment")
        return Response([request_data(r) for r in rows])

    @extend_schema(request=InputSerializer, responses={201: RegradeRequestOutputSerializer})
    def post(self, request: Request, submission_id: int) -> Response:
        """The submission's student asks for a regrade (one open request at a time)."""
        submission, _ = submission_get(user=request.user, submission_id=submission_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        created = regrade_request_create(submission=submission, student=request.user, **data.validated_data)
        return Response(request_data(created), status=status.HTTP_201_CREATED)


class CourseRegradeRequestsApi(APIView):
    @extend_schema(parameters=[OpenApiParameter("state", str, enum=["open", "answered"])],
                   responses=RegradeRequestOutputSerializer(many=True))
    def get(self, request: Request, course_id: int) -> Response:
        """The course's regrade requests, newest first (instructors and TAs)."""
        access = course_access_staff(user=request.user, course_id=course_id)
        state = request.query_params.get("state")
        if state not in (None, "open", "answered"):
            raise serializers.ValidationError({"state": ["open or answered"]})
        return Response([request_data(r) for r in course_requests(course=access.course, state=state)])


class RegradeRequestAnswerApi(APIView):
    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "RegradeRequestAnswerInput"

        answer = serializers.CharField(max_length=MAX_MESSAGE, help_text="what the student reads")
        regrade = serializers.BooleanField(default=False, help_text="also grade the submission again")

    @extend_schema(request=InputSerializer, responses=RegradeRequestOutputSerializer)
    def post(self, request: Request, request_id: int) -> Response:
        found = RegradeRequest.objects.select_related("submission__assignment").filter(id=request_id).first()
        if found is None:
            raise Http404("no such regrade request")
        course_access_staff(user=request.user, course_id=found.submission.assignment.course_id)  # 404 outside
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        answered = regrade_request_answer(request=found, by=request.user, **data.validated_data)
        return Response(request_data(answered))
