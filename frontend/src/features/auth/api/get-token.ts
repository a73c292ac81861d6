import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";

export interface ApiToken {
  token: string;
}

export const getToken = (): Promise<ApiToken> => api.get<ApiToken>("/api/auth/token/");

export const tokenQueryOptions = () => queryOptions({ queryKey: ["auth", "token"], queryFn: getToken });

export const useApiToken = () => useQuery(tokenQueryOptions());
