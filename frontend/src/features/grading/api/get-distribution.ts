import { useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { AssignmentDistribution } from "@/types/grading";

/** Staff: the class's scores per check (hidden checks too); 403 for students. */
export const getDistribution = (courseId: number, slug: string): Promise<AssignmentDistribution> =>
  api.get<AssignmentDistribution>(`/api/courses/${courseId}/assignments/${encodeURIComponent(slug)}/distribution/`);

export const useDistribution = (courseId: number, slug: string, enabled: boolean) =>
  useQuery({ queryKey: ["courses", courseId, "distribution", slug], queryFn: () => getDistribution(courseId, slug), enabled });
