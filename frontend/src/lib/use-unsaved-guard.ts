import { useEffect } from "react";
import { useBlocker } from "react-router";

/** While `dirty`, leaving asks first: a link or back button inside the app asks `question`
 * (react-router's blocker, the route stays unless confirmed); closing or reloading the tab gets
 * the browser's own "leave site?" prompt (its text cannot be set). */
export function useUnsavedGuard(dirty: boolean, question: string) {
  const blocker = useBlocker(({ currentLocation, nextLocation }) =>
    dirty && currentLocation.pathname !== nextLocation.pathname);

  useEffect(() => {
    if (blocker.state !== "blocked") return;
    if (window.confirm(question)) blocker.proceed();
    else blocker.reset();
  }, [blocker, question]);

  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener("beforeunload", onBeforeUnload);
    return () => window.removeEventListener("beforeunload", onBeforeUnload);
  }, [dirty]);
}
