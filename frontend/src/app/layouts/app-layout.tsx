import { Navigate, Outlet, useLocation } from "react-router";
import { ErrorMessage } from "@/components/ui/error-message";
import { Spinner } from "@/components/ui/spinner";
import { useSession } from "@/features/auth/api/get-me";
import { isAuthError } from "@/lib/api-client";
import { AppHeader } from "./app-header";

/** Every page but /login: requires a session (GET /api/auth/me/ names a user), else goes to /login. */
export function AppLayout() {
  const meQuery = useSession();
  const location = useLocation();

  if (meQuery.isPending) return <Spinner label="Loading SplayLab…" />;
  // No one signed in (null), or a session or token refused (401/403): sign in first.
  if (meQuery.data === null || (meQuery.isError && isAuthError(meQuery.error))) {
    const next = location.pathname + location.search;
    return <Navigate to={next === "/" ? "/login" : `/login?next=${encodeURIComponent(next)}`} replace />;
  }
  if (meQuery.isError) {
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
