import type { RunMode } from "@/types/api";
import { MAX_NODES, MAX_SEED } from "../lib/run-mode";

interface RunModeFieldsProps {
  mode: RunMode;
  onMode: (mode: RunMode) => void;
  /** The seed as typed (Simulate only). */
  seed: string;
  onSeed: (seed: string) => void;
}

const MODES: [RunMode, string, string][] = [
  ["live", "Run live", "Every node on the lab's daemons, in real time"],
  ["sim", "Simulate", `Every node in one process on a virtual clock: deterministic for a seed, up to ${MAX_NODES.sim.toLocaleString("en-US")} nodes`],
];

/** The run bar's Run live / Simulate choice (docs/simulation.md), and Simulate's seed. */
export function RunModeFields({ mode, onMode, seed, onSeed }: RunModeFieldsProps) {
  return (
    <>
      <fieldset className="run-mode" data-testid="run-mode">
        <legend className="visually-hidden">Run mode</legend>
        {MODES.map(([value, label, title]) => (
          <label key={value} title={title} className={mode === value ? "checked" : undefined}>
            <input type="radio" name="run-mode" value={value} data-testid={`run-mode-${value}`}
              checked={mode === value} onChange={() => onMode(value)} />
            {label}
          </label>
        ))}
      </fieldset>
      {mode === "sim" && (
        <>
          <label htmlFor="run-seed">Seed</label>
          <input id="run-seed" data-testid="run-seed" type="number" min={0} max={MAX_SEED} step={1} inputMode="numeric"
            title="Fixes every random draw: same code, seed and scenario give the same results"
            value={seed} onChange={(e) => onSeed(e.target.value)} />
        </>
      )}
    </>
  );
}
