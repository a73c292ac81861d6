import { useState, type FormEvent } from "react";
import { ErrorMessage } from "@/components/ui/error-message";
import { formatDateTime } from "@/lib/format";
import type { RegradeRequest } from "@/types/grading";
import { useAnswerRegrade, useAskRegrade, useRegradeRequests } from "../api/regrade-requests";
import "./regrade-requests.css";

/** The submission page's regrade requests: its student asks with a message (one open at a time); the course's
 * instructors and TAs answer, and may grade it again. */
export function RegradeRequests({ submissionId, staff, canAsk }: { submissionId: number; staff: boolean; canAsk: boolean }) {
  const requests = useRegradeRequests(submissionId);
  const ask = useAskRegrade(submissionId);
  const [message, setMessage] = useState("");
  const open = requests.data?.some((r) => r.state === "open") ?? false;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (message.trim()) ask.mutate(message, { onSuccess: () => setMessage("") });
  };

  if (requests.isError) return <ErrorMessage error={requests.error} />;
  if (!requests.data || (requests.data.length === 0 && !canAsk)) return null;
  return (
    <section className="card regrade-requests" aria-label="Regrade requests" data-testid="regrade-requests">
      <h2>Regrade requests</h2>
      {requests.data.map((r) =>
        <RequestItem key={r.id} request={r} submissionId={submissionId} staff={staff} />)}
      {canAsk && !open && (
        <form onSubmit={submit} aria-label="Ask for a regrade">
          <label>
            Ask the course staff to look at this grading again: what, and why
            <textarea data-testid="regrade-message" rows={3} maxLength={4000} value={message}
              onChange={(e) => setMessage(e.target.value)} />
          </label>
          <button type="submit" className="primary" data-testid="regrade-ask" disabled={ask.isPending || !message.trim()}>
            Ask for a regrade
          </button>
        </form>
      )}
      {ask.isError && <ErrorMessage error={ask.error} />}
    </section>
  );
}

function RequestItem({ request: r, submissionId, staff }: { request: RegradeRequest; submissionId: number; staff: boolean }) {
  const answerIt = useAnswerRegrade(submissionId);
  const [answer, setAnswer] = useState("");
  const [regrade, setRegrade] = useState(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (answer.trim()) answerIt.mutate({ id: r.id, answer, regrade });
  };
  return (
    <div className="regrade-request" data-testid="regrade-request" data-state={r.state}>
      <p>
        <strong>{r.student}</strong> <span className="muted">{formatDateTime(r.created_at)}</span>: {r.message}
      </p>
      {r.state === "answered" ? (
        <p data-testid="regrade-answer">
          <strong>{r.answered_by ?? "staff"}</strong>{" "}
          <span className="muted">{r.answered_at ? formatDateTime(r.answered_at) : ""}</span>: {r.answer}
          {r.regraded && <em> (graded again)</em>}
        </p>
      ) : staff ? (
        <form onSubmit={submit} aria-label="Answer the request">
          <textarea data-testid="regrade-answer-text" rows={2} maxLength={4000} value={answer} placeholder="Your answer"
            onChange={(e) => setAnswer(e.target.value)} />
          <label>
            <input type="checkbox" checked={regrade} onChange={(e) => setRegrade(e.target.checked)} /> grade it again
          </label>
          <button type="submit" data-testid="regrade-answer-send" disabled={answerIt.isPending || !answer.trim()}>
            Answer
          </button>
          {answerIt.isError && <ErrorMessage error={answerIt.error} />}
        </form>
      ) : (
        <p className="muted">Waiting for the staff's answer.</p>
      )}
    </div>
  );
}
