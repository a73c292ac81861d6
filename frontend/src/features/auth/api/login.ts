import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { User } from "@/types/api";
import { meQueryKey } from "./get-me";

export interface LoginInput {
  username: string;
  password: string;
}

export const login = (input: LoginInput): Promise<User | null> => api.post<User | null>("/api/auth/login/", input);

export const useLogin = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: login,
    onSuccess: async (user) => {
      // The login answer may or may not be the user; ask /me/ to be sure.
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== "auth" });
      if (user && typeof user === "object" && "username" in user) queryClient.setQueryData(meQueryKey, user);
      await queryClient.invalidateQueries({ queryKey: meQueryKey });
    },
  });
};
