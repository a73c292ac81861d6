import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { subscribe } from "@/lib/ws-client";
import { submissionQueryKey } from "../api/get-submission";
import { submissionsQueryKey } from "../api/get-submissions";
import { changedBy, isSubmissionsQuery, setPushOpen, SUBMISSIONS_SOCKET, watchedBy } from "../lib/push";

/** Refetches the user's own submissions when the server pushes a change of their status
 * (lib/push.ts): the submission pages call it; their polls then slow down. */
export function useSubmissionUpdates(): void {
  const queryClient = useQueryClient();

  useEffect(() => {
    return subscribe(SUBMISSIONS_SOCKET, {
      // (the shared socket tells a new subscriber its status at once: a socket that is not
      // open, or a new one, covers nothing until its first message says whose it is)
      onStatus: (status) => {
        if (status !== "open") setPushOpen(null);
      },
      // After a (re)connection, refetch what may have changed while it was closed.
      onOpen: () =>
        void queryClient.invalidateQueries({ predicate: (q) => isSubmissionsQuery(q.queryKey) }),
      onMessage: (raw) => {
        const student = watchedBy(raw);
        if (student !== null) {
          setPushOpen(student);
          return;
        }
        const changed = changedBy(raw);
        if (!changed) return;
        void queryClient.invalidateQueries({ queryKey: submissionQueryKey(changed.id) });
        void queryClient.invalidateQueries({ queryKey: submissionsQueryKey(changed.course, changed.assignment) });
      },
    });
  }, [queryClient]);
}
