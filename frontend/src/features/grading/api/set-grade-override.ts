import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { Gradebook, GradebookCell, GradeOverrideInput } from "@/types/grading";
import { withCell } from "../lib/gradebook";
import { gradebookQueryKey } from "./get-gradebook";

const overrideUrl = (courseId: number, slug: string, studentId: number) =>
  `/api/courses/${courseId}/gradebook/${encodeURIComponent(slug)}/${studentId}/`;

/** PUT: set (replace) the override; answers the cell as it is now. */
export const setGradeOverride = (courseId: number, slug: string, studentId: number, input: GradeOverrideInput) =>
  api.put<GradebookCell>(overrideUrl(courseId, slug, studentId), input);

/** DELETE: back to the submissions' score. */
export const deleteGradeOverride = (courseId: number, slug: string, studentId: number) =>
  api.delete<null>(overrideUrl(courseId, slug, studentId));

interface OverrideTarget {
  slug: string;
  studentId: number;
  /** null: remove the override. */
  input: GradeOverrideInput | null;
}

export const useGradeOverride = (courseId: number) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ slug, studentId, input }: OverrideTarget) => {
      if (input) return setGradeOverride(courseId, slug, studentId, input);
      await deleteGradeOverride(courseId, slug, studentId);
      return null;
    },
    onSuccess: (cell, { slug, studentId }) => {
      if (cell) queryClient.setQueryData<Gradebook>(gradebookQueryKey(courseId), (book) => book && withCell(book, studentId, slug, cell));
      void queryClient.invalidateQueries({ queryKey: gradebookQueryKey(courseId) });
    },
  });
};
