import { createBrowserRouter } from "react-router";
import { AppLayout } from "./layouts/app-layout";
import { JobRoute } from "./routes/job";
import { JobsRoute } from "./routes/jobs";
import { LoginRoute } from "./routes/login";
import { NotFoundRoute } from "./routes/not-found";
import { ScenariosRoute } from "./routes/scenarios";
import { TokenRoute } from "./routes/token";
import { WorkspaceRoute } from "./routes/workspace";

export const router = createBrowserRouter([
  { path: "/login", element: <LoginRoute /> },
  {
    element: <AppLayout />,
    children: [
      { index: true, element: <WorkspaceRoute /> },
      { path: "jobs", element: <JobsRoute /> },
      { path: "jobs/:id", element: <JobRoute /> },
      { path: "scenarios", element: <ScenariosRoute /> },
      { path: "token", element: <TokenRoute /> },
      { path: "*", element: <NotFoundRoute /> },
    ],
  },
]);
