import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import { listItems, type ListResponse } from "@/types/api";
import type { Course } from "@/types/grading";

export const getCourses = async (): Promise<Course[]> =>
  listItems(await api.get<ListResponse<Course>>("/api/courses/"));

export const coursesQueryKey = ["courses", "list"] as const;

export const coursesQueryOptions = () =>
  queryOptions({ queryKey: coursesQueryKey, queryFn: getCourses, staleTime: 60_000 });

export const useCourses = () => useQuery(coursesQueryOptions());
