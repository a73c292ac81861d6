import { errorText } from "@/components/ui/error-message";
import { useStopJob } from "../api/stop-job";

export function StopButton({ jobId }: { jobId: number }) {
  const stop = useStopJob(jobId);
  return (
    <>
      <button
        type="button"
        className="danger"
        data-testid="stop-button"
        disabled={stop.isPending || stop.isSuccess}
        onClick={() => stop.mutate()}
      >
        {stop.isPending || stop.isSuccess ? "Stopping…" : "■ Stop"}
      </button>
      {stop.isError && (
        <span className="form-error" role="alert">
          {errorText(stop.error)}
        </span>
      )}
    </>
  );
}
