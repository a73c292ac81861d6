import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import { listItems, type ListResponse } from "@/types/api";
import type { Submission } from "@/types/grading";
import { submissionsPollMs } from "../lib/push";
import { assignmentUrl } from "./get-assignment";

/** Students: their own, newest first; instructors and TAs: everyone's (or one student's). */
export const getSubmissions = async (courseId: number, slug: string): Promise<Submission[]> =>
  listItems(await api.get<ListResponse<Submission>>(`${assignmentUrl(courseId, slug)}submissions/`));

export const submissionsQueryKey = (courseId: number, slug: string) =>
  ["courses", courseId, "assignment", slug, "submissions"] as const;

export const submissionsQueryOptions = (courseId: number, slug: string) =>
  queryOptions({
    queryKey: submissionsQueryKey(courseId, slug),
    queryFn: () => getSubmissions(courseId, slug),
    // Polled while one is being graded; slowly while the server pushes their changes (lib/push.ts).
    refetchInterval: (query) => submissionsPollMs(query.state.data),
    staleTime: 0,
  });

export const useSubmissions = (courseId: number, slug: string) => useQuery(submissionsQueryOptions(courseId, slug));
