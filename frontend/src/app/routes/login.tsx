import { Navigate, useNavigate, useSearchParams } from "react-router";
import { useMe } from "@/features/auth/api/get-me";
import { LoginForm } from "@/features/auth/components/login-form";

/** Only same-site paths are followed after login. */
function safeNext(next: string | null): string {
  return next && next.startsWith("/") && !next.startsWith("//") ? next : "/";
}

export function LoginRoute() {
  // Also fetches the csrftoken cookie that the login POST needs.
  const meQuery = useMe();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const next = safeNext(params.get("next"));

  if (meQuery.isSuccess) return <Navigate to={next} replace />;
  return (
    <main className="login-page">
      <LoginForm onSuccess={() => navigate(next, { replace: true })} />
    </main>
  );
}
