import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { Gradebook } from "@/types/grading";

export const getGradebook = (courseId: number): Promise<Gradebook> => api.get<Gradebook>(`/api/courses/${courseId}/gradebook/`);

export const gradebookQueryKey = (courseId: number) => ["courses", courseId, "gradebook"] as const;

export const gradebookQueryOptions = (courseId: number) =>
  queryOptions({ queryKey: gradebookQueryKey(courseId), queryFn: () => getGradebook(courseId), staleTime: 0 });

export const useGradebook = (courseId: number | undefined) =>
  useQuery({ ...gradebookQueryOptions(courseId ?? 0), enabled: courseId !== undefined });

/** The CSV export (same session): one row per student, one column per assignment's slug, then one per check ("slug: check"). */
export const gradebookCsvUrl = (courseId: number) => `/api/courses/${courseId}/gradebook.csv`;
