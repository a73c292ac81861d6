// The editor's Ctrl/Cmd+Enter (run) and Shift+Ctrl/Cmd+Enter (simulate) reach the page's run
// bar through one window event: the editor and the run bar belong to different features.
export type RunShortcut = "live" | "sim";

const EVENT = "splaylab:run";

export function requestRun(mode: RunShortcut): void {
  window.dispatchEvent(new CustomEvent<RunShortcut>(EVENT, { detail: mode }));
}

/** Calls `handler` on each request until the returned function is called. */
export function onRunRequest(handler: (mode: RunShortcut) => void): () => void {
  const listener = (event: Event) => handler((event as CustomEvent<RunShortcut>).detail);
  window.addEventListener(EVENT, listener);
  return () => window.removeEventListener(EVENT, listener);
}
