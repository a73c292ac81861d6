import { Navigate, useNavigate, useSearchParams } from "react-router";
import { useSession } from "@/features/auth/api/get-me";
import { LoginForm } from "@/features/auth/components/login-form";

/** Only same-site paths are followed after login. */
function safeNext(next: string | null): string {
  return next && next.startsWith("/") && !next.startsWith("//") ? next : "/";
}

export function LoginRoute() {
  // Also fetches the csrftoken cookie that the login POST needs.
  const meQuery = useSession();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const next = safeNext(params.get("next"));

  if (meQuery.data) return <Navigate to={next} replace />;  // already signed in
  return (
    <main className="login-page">
      <LoginForm onSuccess={() => navigate(next, { replace: true })} />
    </main>
  );
}
