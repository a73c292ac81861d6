import { Link } from "react-router";

export function NotFoundRoute() {
  return (
    <div className="narrow card">
      <h1>Page not found</h1>
      <p>
        <Link to="/">Back to the workspace</Link>
      </p>
    </div>
  );
}
