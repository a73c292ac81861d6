import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import { listItems, type ListResponse } from "@/types/api";
import type { AssignmentSummary } from "@/types/grading";

export const getAssignments = async (courseId: number): Promise<AssignmentSummary[]> =>
  listItems(await api.get<ListResponse<AssignmentSummary>>(`/api/courses/${courseId}/assignments/`));

export const assignmentsQueryKey = (courseId: number) => ["courses", courseId, "assignments"] as const;

export const assignmentsQueryOptions = (courseId: number) =>
  queryOptions({ queryKey: assignmentsQueryKey(courseId), queryFn: () => getAssignments(courseId) });

export const useAssignments = (courseId: number) => useQuery(assignmentsQueryOptions(courseId));
