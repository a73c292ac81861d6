import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { AssignmentDetail } from "@/types/grading";

export const assignmentUrl = (courseId: number, slug: string) =>
  `/api/courses/${courseId}/assignments/${encodeURIComponent(slug)}/`;

export const getAssignment = (courseId: number, slug: string): Promise<AssignmentDetail> =>
  api.get<AssignmentDetail>(assignmentUrl(courseId, slug));

export const assignmentQueryKey = (courseId: number, slug: string) => ["courses", courseId, "assignment", slug] as const;

export const assignmentQueryOptions = (courseId: number, slug: string) =>
  queryOptions({ queryKey: assignmentQueryKey(courseId, slug), queryFn: () => getAssignment(courseId, slug), staleTime: 60_000 });

export const useAssignment = (courseId: number, slug: string) => useQuery(assignmentQueryOptions(courseId, slug));
