import { useState } from "react";
import { Link, Navigate, useParams } from "react-router";
import { ErrorMessage } from "@/components/ui/error-message";
import { Spinner } from "@/components/ui/spinner";
import { useCourse } from "@/features/courses/api/get-course";
import { useCourses } from "@/features/courses/api/get-courses";
import { staffCourses } from "@/features/courses/lib/roles";
import { gradebookCsvUrl, useGradebook } from "@/features/grading/api/get-gradebook";
import { GradebookTable, type CellRef } from "@/features/grading/components/gradebook-table";
import { OpenRegradeRequests } from "@/features/grading/components/open-regrade-requests";
import { OverrideForm } from "@/features/grading/components/override-form";
import { positiveId } from "@/lib/ids";

/** /gradebook: the courses whose gradebook the user may open (straight to it when only one). */
export function GradebooksRoute() {
  const courses = useCourses();
  if (courses.isPending) return <Spinner label="Loading courses…" />;
  if (courses.isError) return <ErrorMessage error={courses.error} title="Cannot load your courses." />;
  const mine = staffCourses(courses.data);
  if (mine.length === 1) return <Navigate to={`/courses/${mine[0]!.id}/gradebook`} replace />;
  return (
    <div className="narrow">
      <h1>Gradebooks</h1>
      {mine.length === 0 && <p className="muted">You are an instructor or TA of no course.</p>}
      <ul>
        {mine.map((c) => (
          <li key={c.id}>
            <Link to={`/courses/${c.id}/gradebook`}>{c.name}</Link>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** A course's gradebook (instructors and TAs): students × assignments, overrides with comments, CSV export. */
export function GradebookRoute() {
  const params = useParams();
  const courseId = positiveId(params.courseId);
  const course = useCourse(courseId);
  const book = useGradebook(courseId);
  const [selected, setSelected] = useState<CellRef | null>(null);

  if (courseId === undefined) return <ErrorMessage error={new Error(`"${params.courseId}" is not a course id.`)} />;
  if (book.isPending) return <Spinner label="Loading gradebook…" />;
  if (book.isError) {
    return (
      <div className="narrow">
        <ErrorMessage error={book.error} title="Cannot load the gradebook." />
        <Link to={`/courses/${courseId}`}>Back to the course</Link>
      </div>
    );
  }
  const row = selected ? book.data.rows.find((r) => r.student.id === selected.studentId) : undefined;
  const cell = row?.cells.find((c) => c.assignment === selected?.slug);
  return (
    <div className="gradebook-page">
      <nav className="breadcrumbs muted" aria-label="Breadcrumbs">
        <Link to="/courses">Courses</Link> › <Link to={`/courses/${courseId}`}>{course.data?.name ?? "Course"}</Link> ›
      </nav>
      <div className="job-title-row">
        <h1>Gradebook</h1>
        {/* A plain link: the browser downloads with the session cookie and the server's file name. */}
        <a className="button" href={gradebookCsvUrl(courseId)} download data-testid="gradebook-csv">
          Export CSV
        </a>
      </div>
      <p className="muted">
        Each cell is the override's score if there is one (✎), else the latest graded submission's score after the late
        penalty; * marks a comment (hover a cell to read it). Click a cell to override it or comment.
      </p>
      <OpenRegradeRequests courseId={courseId} />
      <GradebookTable book={book.data} selected={selected} onSelect={setSelected} />
      {row && cell && <OverrideForm key={`${row.student.id}/${cell.assignment}`} courseId={courseId} student={row.student} cell={cell} />}
    </div>
  );
}
