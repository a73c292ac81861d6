// "Run the grader's setup": a report's run handed to the assignment page's run bar through the
// URL (?setup=ring&mode=sim&nodes=64&time=240&seed=3&net=king&from=12), so the link can be
// bookmarked and the page reads it like any other link, typed or not.
import type { ReportRun } from "@/types/grading";

export interface GraderSetup {
  run: string;
  mode: "sim" | "live";
  nodes: number;
  time: number;
  seed: number;
  net: string | null;
  /** The grader's churn scenario: the instructors' file, which the run bar cannot take. */
  churn: string | null;
  /** The submission whose report the link came from. */
  from: number | null;
}

/** The assignment page's address opening its run bar with this run's settings. */
export function graderSetupPath(assignmentPath: string, run: ReportRun, submissionId: number): string {
  const params = new URLSearchParams({ setup: run.name, mode: run.mode, nodes: String(run.nodes), time: String(run.time),
    seed: String(run.seed) });
  if (run.net) params.set("net", run.net);
  if (run.churn) params.set("churn", run.churn);
  params.set("from", String(submissionId));
  return `${assignmentPath}?${params.toString()}`;
}

export type GraderSetupParse = { setup: GraderSetup } | { error: string } | null;

const WHOLE = /^\d{1,9}$/;
const MAX_NODES = 10_000; // the simulator's limit, the highest the run bar takes

/** The setup in the page's address; null when there is none, an error naming each bad value. */
export function parseGraderSetup(params: URLSearchParams): GraderSetupParse {
  const run = params.get("setup");
  if (run === null) return null;
  const problems: string[] = [];
  const mode = params.get("mode") ?? "";
  if (mode !== "sim" && mode !== "live") problems.push(`mode "${mode}" is neither sim nor live`);
  const nodesText = params.get("nodes") ?? "";
  const nodes = Number(nodesText);
  if (!WHOLE.test(nodesText) || nodes < 1 || nodes > MAX_NODES) problems.push(`nodes "${nodesText}" is not a whole number from 1 to ${MAX_NODES}`);
  const timeText = params.get("time") ?? "";
  const time = Number(timeText);
  if (!/^\d+(\.\d+)?$/.test(timeText) || !(time > 0)) problems.push(`time "${timeText}" is not a number of seconds above 0`);
  const seedText = params.get("seed") ?? "";
  if (!WHOLE.test(seedText)) problems.push(`seed "${seedText}" is not a whole number`);
  const net = params.get("net");
  if (net !== null && (net.trim() === "" || net.length > 200)) problems.push("net is empty or longer than 200 characters");
  const fromText = params.get("from");
  if (fromText !== null && !WHOLE.test(fromText)) problems.push(`from "${fromText}" is not a submission id`);
  if (!run.trim()) problems.push("the run has no name");
  if (problems.length) return { error: `This link's run settings are not valid: ${problems.join("; ")}. The run bar keeps its own.` };
  return { setup: { run, mode: mode as "sim" | "live", nodes, time, seed: Number(seedText), net: net ?? null,
    churn: params.get("churn") || null, from: fromText === null ? null : Number(fromText) } };
}

/** "sim, 64 nodes, 240 s, seed 3, net king". */
export function setupText(s: GraderSetup): string {
  return [s.mode, `${s.nodes} node${s.nodes === 1 ? "" : "s"}`, `${s.time} s`, `seed ${s.seed}`, ...(s.net ? [`net ${s.net}`] : [])].join(", ");
}
