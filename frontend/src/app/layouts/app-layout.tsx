import { Navigate, Outlet, useLocation } from "react-router";
import { ErrorMessage } from "@/components/ui/error-message";
import { Spinner } from "@/components/ui/spinner";
import { useMe } from "@/features/auth/api/get-me";
import { isAuthError } from "@/lib/api-client";
import { AppHeader } from "./app-header";

/** Every page but /login: requires a session (GET /api/auth/me/), else goes to /login. */
export function AppLayout() {
  const meQuery = useMe();
  const location = useLocation();

  if (meQuery.isPending) return <Spinner label="Loading SplayLab…" />;
  if (meQuery.isError) {
    if (isAuthError(meQuery.error)) {
      const next = location.pathname + location.search;
      return <Navigate to={next === "/" ? "/login" : `/login?next=${encodeURIComponent(next)}`} replace />;
    }
    return (
      <main className="page">
        <ErrorMessage error={meQuery.error} title="Cannot reach the SplayLab server." />
      </main>
    );
  }

  return (
    <div className="app">
      <AppHeader user={meQuery.data} />
      <main className="page">
        <Outlet />
      </main>
    </div>
  );
}
