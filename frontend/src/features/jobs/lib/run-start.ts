// What the run bar's fields hold when it opens: the defaults, or settings handed to it (the
// "Run the grader's setup" link of a submission's report passes a grading run's).
import type { RunMode } from "@/types/api";
import { NETWORKS } from "./network-presets";
import { DEFAULT_SEED } from "./run-mode";

export const DEFAULT_NODES = 10;
export const DEFAULT_DURATION = 30;
const DEFAULT_CUSTOM_NET = "const:20ms";

/** Settings to start from instead of the defaults; each one left out keeps its default. */
export interface RunBarInitial {
  mode?: RunMode;
  nodes?: number;
  duration?: number;
  /** A preset's value ("king") or any model text ("const:20ms", "transit-stub:2:4"). */
  net?: string;
  seed?: number;
  /** Tick "with the grader's harness" (it applies to simulated runs only). */
  withHarness?: boolean;
}

export interface RunBarStart {
  mode: RunMode;
  nodes: string;
  duration: string;
  network: string;
  customNet: string;
  seed: string;
  withHarness: boolean;
}

// The file presets need a file, which a setting cannot carry: only plain presets are chosen as such.
const isPlainPreset = (net: string) => NETWORKS.some(([value]) => value === net && !["custom", "matrix", "trace"].includes(value));

/** The fields' first values; a net that is no plain preset opens the custom field with its text. */
export function runBarStart(initial: RunBarInitial = {}): RunBarStart {
  const net = initial.net;
  const preset = net === undefined || isPlainPreset(net);
  return {
    mode: initial.mode ?? "live",
    nodes: String(initial.nodes ?? DEFAULT_NODES),
    duration: String(initial.duration ?? DEFAULT_DURATION),
    network: preset ? (net ?? "") : "custom",
    customNet: preset ? DEFAULT_CUSTOM_NET : net,
    seed: String(initial.seed ?? DEFAULT_SEED),
    withHarness: initial.withHarness ?? false,
  };
}
