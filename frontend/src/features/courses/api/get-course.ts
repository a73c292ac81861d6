import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { Course } from "@/types/grading";

export const getCourse = (id: number): Promise<Course> => api.get<Course>(`/api/courses/${id}/`);

export const courseQueryKey = (id: number) => ["courses", "detail", id] as const;

export const courseQueryOptions = (id: number) =>
  queryOptions({ queryKey: courseQueryKey(id), queryFn: () => getCourse(id), staleTime: 60_000 });

export const useCourse = (id: number | undefined) =>
  useQuery({ ...courseQueryOptions(id ?? 0), enabled: id !== undefined && Number.isInteger(id) && id > 0 });
