// Wire types of courses, assignments, submissions and the gradebook (docs/grading.md;
// backend/courses/apis.py, backend/grading/serializers.py).

/** The user's role in one course (the global User.role does not open a course). */
export type CourseRole = "student" | "ta" | "instructor";

/** GET /api/courses/, GET /api/courses/<id>/, POST /api/courses/join {code}. */
export interface Course {
  id: number;
  name: string;
  slug: string;
  role: CourseRole;
  /** Instructors and TAs only (null for students). */
  join_code: string | null;
  max_nodes_per_job: number;
  max_concurrent_jobs: number;
  minutes_per_day_per_student: number;
  /** Of the score, per started day late. */
  late_penalty_percent: number;
  /** After these, students' submissions are refused. */
  max_late_days: number;
  daemons: { id: number; name: string }[];
  /** Days a job's logs, metrics and traces are kept after it ended (0: no age limit). */
  retention_days: number;
  /** MB kept per ended job, oldest pruned first (0: no limit). */
  retention_max_mb_per_job: number;
  /** Instructors and TAs only (null for students): what the students' jobs store. */
  disk_use: DiskUse | null;
}

/** A course's disk use (staff only), in GET /api/courses/<id>/. */
export interface DiskUse {
  log_bytes: number;
  metric_bytes: number;
  trace_bytes: number;
  total_bytes: number;
  jobs: number;
  measured_at: string | null;
}

/** GET /api/courses/<id>/assignments/ (students: published ones only). */
export interface AssignmentSummary {
  id: number;
  slug: string;
  title: string;
  summary: string;
  deadline: string | null;
  published: boolean;
  updated_at: string;
  /** Your own latest submission (list only; students: the visible checks' score before the deadline). */
  my_latest?: { id: number; status: SubmissionStatus; final_score: number | null } | null;
  /** Students: your final grade, as in the gradebook (list only; null for staff). */
  my_grade?: FinalGrade | null;
}

/** A student's grade for an assignment as the reader may see it: the gradebook's cell (the
 * override's score, else the latest graded submission's final score). */
export interface FinalGrade {
  /** null: nothing graded yet, or withheld (it counts hidden checks: `hidden_withheld`). */
  score: number | null;
  source: "override" | "submission" | null;
  /** The submission that counts. */
  submission: number | null;
  override: { score: number | null; comment: string; by: string | null; at: string } | null;
  hidden_withheld: number;
}

/** One grading run of the spec (assignment.yaml `runs`). */
export interface AssignmentRun {
  name: string;
  mode?: "sim" | "live";
  nodes?: number;
  time?: number;
  seed?: number;
  net?: string;
  churn?: string;
}

/** A check of the spec, defaults filled in; students never get hidden ones. */
export interface AssignmentCheck {
  name: string;
  check: string;
  run: string | null;
  weight: number;
  hidden: boolean;
  params: Record<string, unknown>;
}

/** GET /api/courses/<id>/assignments/<slug>/ */
export interface AssignmentDetail extends AssignmentSummary {
  course: number;
  /** The handout (markdown). */
  handout: string;
  /** The student's first app.lua. */
  starter: string;
  harness: string;
  runs: AssignmentRun[];
  checks: AssignmentCheck[];
  late_penalty_percent: number;
  max_late_days: number;
  /** deadline + max_late_days: students' submissions are refused after it. */
  closes_at: string | null;
  /** Hidden checks reach students once the deadline has passed. */
  hidden_revealed: boolean;
  // Instructors and TAs only:
  reference?: string;
  spec?: Record<string, unknown>;
  files?: Record<string, string>;
  folder?: string;
}

/** PATCH /api/courses/<id>/assignments/<slug>/ (instructors). */
export interface AssignmentUpdateInput {
  title?: string;
  summary?: string;
  handout?: string;
  starter?: string;
  reference?: string;
  harness?: string;
  /** assignment.yaml as JSON; the grader validates it (a 400 on `spec` names the key and the problem). */
  spec?: Record<string, unknown>;
  /** Path → text; replaces all the files. */
  files?: Record<string, string>;
  deadline?: string | null;
  published?: boolean;
}

export type SubmissionStatus = "queued" | "running" | "graded" | "error";

/** GET /api/courses/<id>/assignments/<slug>/submissions/ (students: their own). */
export interface Submission {
  id: number;
  assignment: string;
  assignment_title: string;
  course: number;
  student: string;
  created_at: string;
  /** The assignment's deadline (null: none). */
  deadline: string | null;
  sha256: string;
  status: SubmissionStatus;
  attempt: number;
  /** 0-100 before the late penalty; for students before the deadline, the visible checks' share only. */
  score: number | null;
  late_days: number;
  penalty_percent: number;
  final_score: number | null;
  /** Hidden checks left out of this report until the deadline. */
  hidden_withheld: number;
  graded_at: string | null;
  /** The grader's failure (students get a generic sentence). */
  error: string;
}

/** One check's result (docs/grading.md, "The report"). */
export interface ReportCheck {
  name: string;
  check: string;
  run: string | null;
  passed: boolean;
  points: number;
  max_points: number;
  message: string;
  hidden: boolean;
}

/** One run the grader made (its wall time, and the reference's when it was needed). */
export interface ReportRun {
  name: string;
  mode: string;
  nodes: number;
  time: number;
  seed: number;
  net?: string | null;
  churn?: string | null;
  wall_s: number;
  failure: string | null;
  /** What the output limits cut ("output capped: 27,000 lines dropped by the log rate limit (2 nodes)");
   * absent in reports made before the limits. */
  warnings?: string[];
  reference_wall_s?: number;
  reference_cached?: boolean;
  /** The submission's log lines on this run (visible runs only; absent in older reports). */
  logs?: ReportRunLogs;
}

/** A run's log lines kept in the report: at most 2,000, errors first, by time. */
export interface ReportRunLogs {
  /** Lines the run wrote. */
  total: number;
  /** Of them, at level error. */
  errors: number;
  /** [t (seconds since the run's start; virtual in a simulation), node, level, text]. */
  lines: [number, number, string, string][];
}

/** A latency CDF of one run: the submission's and the reference's, 101 quantiles each (p0..p100). */
export interface ReportPlot {
  run: string;
  metric: string;
  unit: "s";
  samples: number;
  submission: number[];
  reference: number[] | null;
}

/** The grader's report; {} until graded. */
export interface Report {
  assignment?: string;
  score?: number;
  max_score?: number;
  submission_sha256?: string;
  compile_error?: string | null;
  runs?: ReportRun[];
  checks?: ReportCheck[];
  plots?: ReportPlot[];
}

/** An earlier grading of the submission (instructors and TAs: before each regrade). */
export interface SubmissionHistoryEntry {
  attempt: number;
  status: SubmissionStatus;
  score: number | null;
  final_score: number | null;
  late_days: number;
  penalty_percent: number;
  error: string;
  graded_at: string | null;
}

/** GET /api/submissions/<id>/, and POST …/submissions/ {source} (201). */
export interface SubmissionDetail extends Submission {
  source: string;
  report: Report;
  history?: SubmissionHistoryEntry[];
  /** The submitter's final grade for the assignment (null: not a student of the course). */
  final_grade: FinalGrade | null;
}

export interface GradebookStudent {
  id: number;
  username: string;
  name: string;
  email: string;
}

/** One student × assignment: the override's score if any, else the latest graded submission's final score. */
export interface GradebookCell {
  assignment: string;
  score: number | null;
  source: "override" | "submission" | null;
  /** How many submissions, whatever their status. */
  submissions: number;
  submission: {
    id: number;
    score: number | null;
    final_score: number | null;
    late_days: number;
    penalty_percent: number;
    created_at: string;
  } | null;
  override: { score: number | null; comment: string; by: string | null; at: string } | null;
  /** Where the cell stands with the course's LMS (backend/lti); null: never sent. */
  lms?: LmsCellSync | null;
}

/** A gradebook cell's grade passback (LTI AGS): sent, pending (retried, or held while hidden checks are not
 * released) or failed, with the reason. */
export interface LmsCellSync {
  state: "pending" | "sent" | "failed";
  reason: string;
  score: number | null;
  submission: number | null;
  sent_at: string | null;
  changed_at: string;
  tries: number;
}

/** GET /api/courses/<id>/gradebook/ (instructors and TAs). */
export interface Gradebook {
  course: number;
  assignments: AssignmentSummary[];
  rows: { student: GradebookStudent; cells: GradebookCell[] }[];
  /** linked: a bound LMS course takes the grades back. */
  lms?: { linked: boolean };
}

/** PUT /api/courses/<id>/gradebook/<slug>/<student id>/: score null keeps the submissions' score (comment only). */
export interface GradeOverrideInput {
  score: number | null;
  comment: string;
}

/** One check's results over the class (GET .../assignments/<slug>/distribution/, staff). */
export interface CheckDistribution {
  name: string;
  check: string;
  hidden: boolean;
  /** Students whose counted submission was graded on this check. */
  students: number;
  max_points: number;
  mean_points: number | null;
  passed: number;
  /** Students per tenth of max_points (the last bin includes full marks). */
  histogram: number[];
}

export interface AssignmentDistribution {
  assignment: string;
  students: number;
  graded: number;
  mean_score: number | null;
  score_histogram: number[];
  checks: CheckDistribution[];
}

/** A student's request that staff look at a submission's grading again, and the staff's answer. */
export interface RegradeRequest {
  id: number;
  submission: number;
  assignment: string;
  student: string;
  message: string;
  created_at: string;
  state: "open" | "answered";
  answer: string;
  answered_by: string | null;
  answered_at: string | null;
  /** The answer queued a regrade of the submission. */
  regraded: boolean;
}
