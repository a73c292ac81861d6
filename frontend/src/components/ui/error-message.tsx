import { ApiError } from "@/lib/api-client";

export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 404) return "Not found.";
    return error.message;
  }
  if (error instanceof Error) return error.message;
  return String(error);
}

export function ErrorMessage({ error, title }: { error: unknown; title?: string }) {
  return (
    <div className="error-box" role="alert">
      {title && <strong>{title} </strong>}
      {errorText(error)}
    </div>
  );
}
