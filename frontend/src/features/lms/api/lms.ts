import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { LmsPlatform, LmsPlatformInput, LmsPlatforms } from "../lib/lms";

export const lmsQueryKey = (courseId: number) => ["lms", "platforms", courseId] as const;

/** Staff: the course's LMS registrations and the tool's URLs to paste into the LMS. */
export const getLmsPlatforms = (courseId: number): Promise<LmsPlatforms> =>
  api.get<LmsPlatforms>(`/api/courses/${courseId}/lti/platforms/`);

export const useLmsPlatforms = (courseId: number) =>
  useQuery({ queryKey: lmsQueryKey(courseId), queryFn: () => getLmsPlatforms(courseId) });

/** Instructors: 201 with the registration; 400 names a bad field; 409 when (issuer, client id) is registered already. */
export const useRegisterLms = (courseId: number) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: LmsPlatformInput) => api.post<LmsPlatform>(`/api/courses/${courseId}/lti/platforms/`, input),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: lmsQueryKey(courseId) }),
  });
};

/** Instructors: change a registration (here: its deployment ids, which a dynamic registration may lack). */
export const useUpdateLms = (courseId: number) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...input }: Partial<LmsPlatformInput> & { id: number }) =>
      api.patch<LmsPlatform>(`/api/courses/${courseId}/lti/platforms/${id}/`, input),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: lmsQueryKey(courseId) }),
  });
};

export const useDeleteLms = (courseId: number) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (platformId: number) => api.delete<void>(`/api/courses/${courseId}/lti/platforms/${platformId}/`),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: lmsQueryKey(courseId) }),
  });
};

/** Read the LMS roster now (NRPS): {members}; 409 before any launch; 502 with the LMS's reason. */
export const useRosterSync = (courseId: number) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<{ members: number }>(`/api/courses/${courseId}/lti/roster-sync/`),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: lmsQueryKey(courseId) }),
  });
};
