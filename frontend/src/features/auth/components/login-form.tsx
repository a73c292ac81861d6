import { useState, type FormEvent } from "react";
import { ApiError } from "@/lib/api-client";
import { useLogin } from "../api/login";

interface LoginFormProps {
  onSuccess: () => void;
}

function loginErrorText(error: unknown): string {
  // 400: wrong credentials; 403 would be a CSRF failure, whose message is more useful.
  if (error instanceof ApiError && (error.status === 400 || error.status === 401)) {
    return "Invalid username or password.";
  }
  if (error instanceof ApiError) return `Login failed: ${error.message}`;
  return "Cannot reach the server. Try again.";
}

export function LoginForm({ onSuccess }: LoginFormProps) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const loginMutation = useLogin();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    loginMutation.mutate({ username, password }, { onSuccess });
  };

  return (
    <form className="login-form card" onSubmit={submit}>
      <h1>SplayLab</h1>
      <p className="muted">Sign in to write and run distributed protocols.</p>
      <label htmlFor="login-username">Username</label>
      <input
        id="login-username"
        data-testid="login-username"
        autoComplete="username"
        autoFocus
        value={username}
        onChange={(event) => setUsername(event.target.value)}
        required
      />
      <label htmlFor="login-password">Password</label>
      <input
        id="login-password"
        data-testid="login-password"
        type="password"
        autoComplete="current-password"
        value={password}
        onChange={(event) => setPassword(event.target.value)}
        required
      />
      {loginMutation.isError && (
        <p className="form-error" role="alert" data-testid="login-error">
          {loginErrorText(loginMutation.error)}
        </p>
      )}
      <button type="submit" className="primary" data-testid="login-submit" disabled={loginMutation.isPending}>
        {loginMutation.isPending ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
