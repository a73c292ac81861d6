import { createBrowserRouter } from "react-router";
import { AppLayout } from "./layouts/app-layout";
import { AssignmentRoute } from "./routes/assignment";
import { AssignmentEditRoute } from "./routes/assignment-edit";
import { CourseRoute } from "./routes/course";
import { CoursesRoute } from "./routes/courses";
import { DaemonsRoute } from "./routes/daemons";
import { GradebookRoute, GradebooksRoute } from "./routes/gradebook";
import { JobRoute } from "./routes/job";
import { JobsRoute } from "./routes/jobs";
import { LoginRoute } from "./routes/login";
import { NotFoundRoute } from "./routes/not-found";
import { ReferenceRoute } from "./routes/reference";
import { ScenariosRoute } from "./routes/scenarios";
import { SubmissionRoute } from "./routes/submission";
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
      { path: "courses", element: <CoursesRoute /> },
      { path: "courses/:courseId", element: <CourseRoute /> },
      { path: "courses/:courseId/assignments/:slug", element: <AssignmentRoute /> },
      { path: "courses/:courseId/assignments/:slug/edit", element: <AssignmentEditRoute /> },
      { path: "courses/:courseId/gradebook", element: <GradebookRoute /> },
      { path: "gradebook", element: <GradebooksRoute /> },
      { path: "submissions/:id", element: <SubmissionRoute /> },
      { path: "daemons", element: <DaemonsRoute /> },
      { path: "token", element: <TokenRoute /> },
      { path: "reference", element: <ReferenceRoute /> },
      { path: "*", element: <NotFoundRoute /> },
    ],
  },
]);
