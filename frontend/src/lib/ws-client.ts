// The one websocket client: one shared, reference-counted connection per path,
// reconnecting with exponential backoff. Features subscribe to the messages they need.

export type SocketStatus = "connecting" | "open" | "closed";

export interface SocketListener {
  onMessage?: (message: unknown) => void;
  /** Called after every (re)connection; use it to fetch what was missed. */
  onOpen?: () => void;
  onStatus?: (status: SocketStatus) => void;
}

/** Delay before reconnect attempt `attempt` (0-based): 0.5 s doubling up to 15 s, with jitter. */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(15_000, 500 * 2 ** Math.min(attempt, 10));
  return Math.round(base * (0.75 + 0.5 * random()));
}

/** Close codes 4000-4999 are application refusals (no permission, unknown job): no retry. */
function isPermanentClose(code: number): boolean {
  return code >= 4000 && code < 5000;
}

export function socketUrl(path: string, loc: Pick<Location, "protocol" | "host"> = window.location): string {
  const scheme = loc.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${loc.host}${path}`;
}

class SharedSocket {
  private socket: WebSocket | null = null;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  status: SocketStatus = "connecting";
  readonly listeners = new Set<SocketListener>();

  constructor(private readonly path: string) {
    this.connect();
  }

  private setStatus(status: SocketStatus): void {
    this.status = status;
    for (const listener of this.listeners) listener.onStatus?.(status);
  }

  private connect(): void {
    if (this.stopped) return;
    this.setStatus("connecting");
    const socket = new WebSocket(socketUrl(this.path));
    this.socket = socket;
    socket.onopen = () => {
      this.attempt = 0;
      this.setStatus("open");
      for (const listener of this.listeners) listener.onOpen?.();
    };
    socket.onmessage = (event: MessageEvent) => {
      if (typeof event.data !== "string") return;
      let message: unknown;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      for (const listener of this.listeners) listener.onMessage?.(message);
    };
    socket.onclose = (event: CloseEvent) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.setStatus("closed");
      if (this.stopped || isPermanentClose(event.code)) return;
      this.timer = setTimeout(() => this.connect(), backoffDelay(this.attempt++));
    };
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const socket = this.socket;
    this.socket = null;
    socket?.close(1000);
  }
}

const sockets = new Map<string, SharedSocket>();

/** Subscribe to the socket at `path` (e.g. "/ws/jobs/7/"); returns the unsubscribe function. */
export function subscribe(path: string, listener: SocketListener): () => void {
  let shared = sockets.get(path);
  if (!shared) {
    shared = new SharedSocket(path);
    sockets.set(path, shared);
  }
  shared.listeners.add(listener);
  listener.onStatus?.(shared.status);
  if (shared.status === "open") listener.onOpen?.();
  const owner = shared;
  return () => {
    owner.listeners.delete(listener);
    if (owner.listeners.size === 0) {
      owner.stop();
      if (sockets.get(path) === owner) sockets.delete(path);
    }
  };
}
