import { useState, type FormEvent } from "react";
import { ErrorMessage } from "@/components/ui/error-message";
import type { Course } from "@/types/grading";
import { useJoinCourse } from "../api/join-course";
import { joinCodeInput } from "../lib/roles";

interface JoinCourseFormProps {
  /** Called with the course joined (or already a member of). */
  onJoined?: (course: Course) => void;
}

/** POST /api/courses/join {code}: the code the instructor gave (any case, dashes fine). */
export function JoinCourseForm({ onJoined }: JoinCourseFormProps) {
  const [code, setCode] = useState("");
  const join = useJoinCourse();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!joinCodeInput(code)) return;
    join.mutate(code.trim(), {
      onSuccess: (course) => {
        setCode("");
        onJoined?.(course);
      },
    });
  };

  return (
    <form className="card join-course-form" onSubmit={submit} aria-label="Join a course">
      <h2>Join a course</h2>
      <div className="join-course-row">
        <label htmlFor="join-code">Join code</label>
        <input
          id="join-code"
          data-testid="join-code"
          value={code}
          onChange={(event) => setCode(event.target.value)}
          placeholder="e.g. ABCD-EFGH"
          autoComplete="off"
          spellCheck={false}
        />
        <button type="submit" className="primary" data-testid="join-submit" disabled={join.isPending || !joinCodeInput(code)}>
          {join.isPending ? "Joining…" : "Join"}
        </button>
      </div>
      {join.isError && <ErrorMessage error={join.error} />}
      {join.isSuccess && (
        <p className="muted" data-testid="join-result" role="status">
          You are in {join.data.name}.
        </p>
      )}
    </form>
  );
}
