import type { Job } from "@/types/api";
import { formatSimProgress, isSimulated, knownProgress, progressFraction, seedText } from "../lib/sim-progress";

type SimJob = Pick<Job, "mode" | "seed" | "state" | "duration" | "progress">;

/** "simulated · seed 7" on a simulated job (docs/simulation.md); nothing on a live one. */
export function SimBadge({ job, testId }: { job: SimJob; testId?: string }) {
  if (!isSimulated(job)) return null;
  const seed = seedText(job);
  return (
    <span className="sim-badge" data-testid={testId}
      title="Simulated: every node in one process on a virtual clock; the same code, seed and scenario give the same results">
      <span className="sim-badge-mode">simulated</span>
      {seed && <span className="sim-badge-seed">{seed}</span>}
    </span>
  );
}

/** While a simulated job runs: the virtual time reached of its duration (a bar and a line),
 * the events simulated and their rate. Nothing otherwise. */
export function SimProgress({ job, testId }: { job: SimJob; testId?: string }) {
  if (!isSimulated(job) || job.state !== "RUNNING") return null;
  const progress = knownProgress(job);
  return (
    <div className="sim-progress" data-testid={testId}>
      {/* no value: indeterminate until the simulator's first report */}
      <progress max={1} value={progress ? progressFraction(progress, job.duration) : undefined}
        aria-label="Virtual time reached" />
      <span className="sim-progress-text">
        {progress ? formatSimProgress(progress, job.duration) : "starting the simulation…"}
      </span>
    </div>
  );
}
