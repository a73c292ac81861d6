"""Reads on assignments, submissions and the gradebook, and what each role may see of them.

Students see published assignments only, their own submissions only, and never the
reference, the files or hidden checks; until the deadline has passed, a report shown to a
student lists its visible checks only and its score counts them only (docs/decisions.md,
"Grading"). Instructors and TAs of the course see everything of their course.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count, QuerySet
from django.http import Http404
from django.utils import timezone
from rest_framework.exceptions import ValidationError

from accounts.models import User
from courses.models import Course
from courses.selectors import CourseAccess, course_access, course_students

from .models import Assignment, GradeOverride, Submission
from .services import final_score_for

Status = Submission.Status


# ---- assignments --------------------------------------------------------------------------

def assignment_list(*, access: CourseAccess) -> QuerySet[Assignment]:
    qs = Assignment.objects.filter(course=access.course).select_related("course")
    return qs if access.is_staff else qs.filter(published=True)


def assignment_get(*, access: CourseAccess, slug: str) -> Assignment:
    try:
        return assignment_list(access=access).get(slug=slug)
    except Assignment.DoesNotExist as exc:
        raise Http404("no such assignment") from exc


def assignment_harness(*, user: User, assignment_id: int) -> tuple[str, str]:
    """The harness of an assignment the user can see, and how a job names it ("Title (course
    name)"), for a simulated job run with it (jobs.apis). An assignment the user cannot see reads
    as one that does not exist."""
    assignment = Assignment.objects.filter(id=assignment_id).select_related("course").first()
    try:
        access = course_access(user=user, course_id=assignment.course_id) if assignment else None
    except Http404:
        access = None
    if assignment is None or access is None or not (access.is_staff or assignment.published):
        raise ValidationError({"assignment": [f"no assignment {assignment_id} in your courses"]})
    if not assignment.harness.strip():
        raise ValidationError({"assignment": [f"the assignment '{assignment.title}' has no harness to run"]})
    return assignment.harness, f"{assignment.title} ({assignment.course.name})"


def hidden_revealed(assignment: Assignment, now: datetime | None = None) -> bool:
    """Hidden checks and their points reach students once the deadline has passed (never
    without a deadline)."""
    return assignment.deadline is not None and (now or timezone.now()) >= assignment.deadline


def assignment_runs(assignment: Assignment) -> list[dict[str, Any]]:
    return [dict(r) for r in assignment.spec.get("runs") or [] if isinstance(r, dict)]


def assignment_checks(assignment: Assignment, *, include_hidden: bool) -> list[dict[str, Any]]:
    """The spec's checks with their defaults filled in (docs/grading.md)."""
    runs = assignment_runs(assignment)
    first_run = runs[0].get("name") if runs else None
    out = []
    for c in assignment.spec.get("checks") or []:
        if not isinstance(c, dict):
            continue
        check = {"name": c.get("name"), "check": c.get("check"), "run": c.get("run", first_run),
                 "weight": c.get("weight", 1), "hidden": bool(c.get("hidden", False)),
                 "params": c.get("params") or {}}
        if include_hidden or not check["hidden"]:
            out.append(check)
    return out


# ---- submissions --------------------------------------------------------------------------

def submission_list(*, access: CourseAccess, user: User, assignment: Assignment,
                    student_id: int | None = None) -> QuerySet[Submission]:
    qs = Submission.objects.filter(assignment=assignment).select_related("student", "assignment__course")
    if not access.is_staff:
        return qs.filter(student=user)
    return qs if student_id is None else qs.filter(student_id=student_id)


def submission_get(*, user: User, submission_id: int) -> tuple[Submission, CourseAccess]:
    """404 for a submission in a course the user is not in, another student's, or one of an
    assignment students do not see (unpublished)."""
    submission = (Submission.objects.select_related("student", "assignment__course")
                  .filter(id=submission_id).first())
    if submission is None:
        raise Http404("no such submission")
    access = course_access(user=user, course_id=submission.assignment.course_id)  # 404 outside
    if not access.is_staff and (submission.student_id != user.id or not submission.assignment.published):
        raise Http404("no such submission")
    return submission, access


@dataclass(frozen=True)
class SubmissionView:
    """A submission as one reader may see it."""
    submission: Submission
    score: float | None
    final_score: float | None
    report: dict[str, Any]
    hidden_withheld: int
    error: str


def report_visible_score(report: dict[str, Any]) -> float:
    if "score_visible" in report:
        return float(report["score_visible"])
    visible = [c for c in report.get("checks", []) if not c.get("hidden")]
    total = sum(float(c.get("max_points", 0)) for c in visible)
    return round(100 * sum(float(c.get("points", 0)) for c in visible) / total, 1) if total else 0.0


GRADER_FAILED = "grading failed (the grader's fault, not your code's): your instructors can regrade it"


def visible_run_names(report: dict[str, Any]) -> set[str]:
    """The runs a visible check reads: the only ones whose logs reach students."""
    return {c.get("run") for c in report.get("checks", []) if not c.get("hidden") and c.get("run")}


def _student_runs(report: dict[str, Any], *, revealed: bool) -> dict[str, Any]:
    """The report's runs and plots as a student may see them: a hidden run's logs never, and
    before hidden checks are revealed not the hidden run itself (its setup, its plots) either."""
    visible = visible_run_names(report)
    runs = [r if r.get("name") in visible else {k: v for k, v in r.items() if k != "logs"}
            for r in report.get("runs", []) if revealed or r.get("name") in visible]
    plots = [p for p in report.get("plots", []) if revealed or p.get("run") in visible]
    return {**report, "runs": runs, "plots": plots}


def submission_view(submission: Submission, *, access: CourseAccess, now: datetime | None = None) -> SubmissionView:
    report = submission.report or {}
    if access.is_staff or not report:
        return SubmissionView(submission, submission.score, submission.final_score, report, 0,
                              submission.error if access.is_staff or not submission.error else GRADER_FAILED)
    error = GRADER_FAILED if submission.error else ""
    if hidden_revealed(submission.assignment, now):
        return SubmissionView(submission, submission.score, submission.final_score,
                              _student_runs(report, revealed=True), 0, error)
    checks = report.get("checks", [])
    withheld = sum(1 for c in checks if c.get("hidden"))
    shown = {k: v for k, v in _student_runs(report, revealed=False).items() if k not in ("checks", "score_visible")}
    score = report_visible_score(report)
    shown.update(checks=[c for c in checks if not c.get("hidden")], score=score)
    final = final_score_for(score=score, penalty_percent=submission.penalty_percent)
    return SubmissionView(submission, score, final, shown, withheld, error)


# ---- gradebook ----------------------------------------------------------------------------

@dataclass(frozen=True)
class GradebookCell:
    assignment: Assignment
    student: User
    submission: Submission | None   # the latest graded one
    submissions: int                # how many, whatever their status
    override: GradeOverride | None

    @property
    def score(self) -> float | None:
        """The override's score if there is one, else the latest graded submission's final score."""
        if self.override is not None and self.override.score is not None:
            return self.override.score
        return self.submission.final_score if self.submission is not None else None

    @property
    def source(self) -> str | None:
        if self.override is not None and self.override.score is not None:
            return "override"
        return "submission" if self.submission is not None else None


@dataclass(frozen=True)
class Gradebook:
    course: Course
    assignments: list[Assignment]
    rows: list[tuple[User, list[GradebookCell]]]


def gradebook_get(*, course: Course, student_id: int | None = None, assignment_ids: set[int] | None = None,
                  with_reports: bool = False) -> Gradebook:
    """Rows: the course's students (by username); columns: every assignment, published or not
    (or those of `assignment_ids`). with_reports: the cells' submissions carry their reports
    (else loaded on first read, a query each)."""
    assignments = Assignment.objects.filter(course=course).select_related("course")
    submissions = Submission.objects.filter(assignment__course=course)
    overrides_qs = GradeOverride.objects.filter(assignment__course=course)
    if assignment_ids is not None:
        assignments = assignments.filter(id__in=assignment_ids)
        submissions = submissions.filter(assignment_id__in=assignment_ids)
        overrides_qs = overrides_qs.filter(assignment_id__in=assignment_ids)
    assignments = list(assignments)
    students = course_students(course=course)
    if student_id is not None:
        students = students.filter(id=student_id)
    students = list(students)
    ids = [s.id for s in students]
    graded = (submissions.filter(student_id__in=ids, status=Status.GRADED)
              .order_by("assignment_id", "student_id", "-created_at", "-id")
              .distinct("assignment_id", "student_id")
              .defer("source", "history", *(() if with_reports else ("report",))))
    latest = {(s.assignment_id, s.student_id): s for s in graded}
    counts = {(r["assignment_id"], r["student_id"]): r["n"] for r in
              submissions.filter(student_id__in=ids)
              .values("assignment_id", "student_id").annotate(n=Count("id")).order_by()}
    overrides = {(o.assignment_id, o.student_id): o for o in
                 overrides_qs.filter(student_id__in=ids).select_related("by")}
    rows = [(s, [GradebookCell(a, s, latest.get((a.id, s.id)), counts.get((a.id, s.id), 0),
                               overrides.get((a.id, s.id))) for a in assignments]) for s in students]
    return Gradebook(course=course, assignments=assignments, rows=rows)


@dataclass(frozen=True)
class FinalGrade:
    """One student's grade for one assignment as a reader sees it: the gradebook's cell (the
    override's score, else the latest graded submission's final score), except that a student
    gets no score while it counts hidden checks they may not see yet (`hidden_withheld`)."""
    cell: GradebookCell
    score: float | None
    hidden_withheld: int


def _final_grade(cell: GradebookCell, *, access: CourseAccess, now: datetime | None) -> FinalGrade:
    if cell.source == "submission" and not access.is_staff and not hidden_revealed(cell.assignment, now):
        hidden = sum(1 for c in (cell.submission.report or {}).get("checks", []) if c.get("hidden"))
        if hidden:
            return FinalGrade(cell, None, hidden)
    return FinalGrade(cell, cell.score, 0)


def final_grades(*, access: CourseAccess, student: User, assignments: list[Assignment],
                 now: datetime | None = None) -> dict[int, FinalGrade]:
    """assignment id -> the student's final grade, read from the gradebook itself so that what a
    student sees is the gradebook's cell; {} for someone who is not a student of the course."""
    wanted = {a.id for a in assignments}
    # Only the wanted columns, their reports read at once (a student's cell counts the hidden
    # checks in it): each poll of a submission being graded asks for this.
    book = gradebook_get(course=access.course, student_id=student.id, assignment_ids=wanted,
                         with_reports=not access.is_staff)
    if not book.rows:
        return {}
    return {c.assignment.id: _final_grade(c, access=access, now=now) for c in book.rows[0][1]}


def latest_submissions(*, access: CourseAccess, user: User, assignments: list[Assignment]) -> dict[int, dict[str, Any]]:
    """assignment id -> the user's own latest submission to it, as they may see it:
    {id, status, final_score} (students: the visible checks' score until the deadline)."""
    latest = (Submission.objects.filter(student=user, assignment__in=assignments).select_related("assignment")
              .order_by("assignment_id", "-created_at", "-id").distinct("assignment_id"))
    out = {}
    for s in latest:
        view = submission_view(s, access=access)
        out[s.assignment_id] = {"id": s.id, "status": s.status, "final_score": view.final_score}
    return out


# ---- per check ----------------------------------------------------------------------------

def check_names(assignment: Assignment) -> list[str]:
    """The spec's checks, hidden ones included, in the spec's order (staff's views only)."""
    return [str(c["name"]) for c in assignment_checks(assignment, include_hidden=True) if c.get("name")]


def check_points(book: Gradebook) -> dict[tuple[int, int], dict[str, float]]:
    """(assignment id, student id) -> check name -> points, from the submission each gradebook
    cell counts (its latest graded one); cells without one are absent."""
    ids = [c.submission.id for _, cells in book.rows for c in cells if c.submission is not None]
    reports = dict(Submission.objects.filter(id__in=ids).values_list("id", "report"))
    out: dict[tuple[int, int], dict[str, float]] = {}
    for student, cells in book.rows:
        for c in cells:
            if c.submission is not None:
                out[(c.assignment.id, student.id)] = {
                    str(k.get("name")): float(k.get("points", 0)) for k in (reports.get(c.submission.id) or {}).get("checks", [])}
    return out


HISTOGRAM_BINS = 10


def _histogram(fractions: list[float]) -> list[int]:
    """Counts in HISTOGRAM_BINS equal bins of [0, 1] (1.0 in the last)."""
    bins = [0] * HISTOGRAM_BINS
    for f in fractions:
        bins[min(HISTOGRAM_BINS - 1, max(0, int(f * HISTOGRAM_BINS)))] += 1
    return bins


def assignment_distribution(*, assignment: Assignment) -> dict[str, Any]:
    """The class's scores for instructors and TAs: per check (hidden ones too) how many students
    were graded on it, their mean points, how many passed, and a histogram of points / max points;
    and the gradebook's final scores likewise. Each student counts once: the submission their
    gradebook cell counts."""
    book = gradebook_get(course=assignment.course)
    cells = [c for _, row in book.rows for c in row if c.assignment.id == assignment.id]
    graded = [c for c in cells if c.submission is not None]
    reports = dict(Submission.objects.filter(id__in=[c.submission.id for c in graded]).values_list("id", "report"))
    checks = []
    for spec in assignment_checks(assignment, include_hidden=True):
        rows = [k for c in graded for k in (reports.get(c.submission.id) or {}).get("checks", [])
                if k.get("name") == spec["name"]]
        max_points = max((float(k.get("max_points", 0)) for k in rows), default=0.0)
        given = [float(k.get("points", 0)) for k in rows]
        checks.append({
            "name": spec["name"], "check": spec["check"], "hidden": spec["hidden"], "students": len(rows),
            "max_points": max_points, "mean_points": round(sum(given) / len(given), 2) if given else None,
            "passed": sum(1 for k in rows if k.get("passed")),
            "histogram": _histogram([p / max_points for p in given] if max_points else [])})
    scores = [float(c.score) for c in cells if c.score is not None]
    return {"assignment": assignment.slug, "students": len(cells), "graded": len(scores),
            "mean_score": round(sum(scores) / len(scores), 2) if scores else None,
            "score_histogram": _histogram([s / 100 for s in scores]), "checks": checks}
