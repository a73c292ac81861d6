import { useState, type FormEvent } from "react";
import { useNavigate } from "react-router";
import { ErrorMessage } from "@/components/ui/error-message";
import type { RunMode } from "@/types/api";
import { useCreateJob } from "../api/create-job";
import { useRunShortcut } from "../hooks/use-run-shortcut";
import { churnChoice, churnErrorText, runSize } from "../lib/churn-choice";
import { MAX_NETWORK_FILE_BYTES, networkChoice } from "../lib/network-choice";
import { NETWORKS } from "../lib/network-presets";
import { MAX_NODES, keepPopulationBlocked, modeChoice, nodeLimitText } from "../lib/run-mode";
import { DEFAULT_DURATION, DEFAULT_NODES, runBarStart, type RunBarInitial } from "../lib/run-start";
import { ChurnFields, useChurnChoice } from "./churn-fields";
import { RunButton } from "./run-button";
import { RunModeFields } from "./run-mode-fields";

interface RunBarProps {
  /** The code to run, read when Run is pressed. */
  getCode: () => string | null;
  filename: string;
  /** Called before submitting (e.g. flush the autosave); a failure does not block the run. */
  beforeRun?: () => Promise<void>;
  /** On an assignment's page: the assignment whose harness a simulated run may take along. */
  harnessOf?: { id: number; title: string };
  initial?: RunBarInitial;
}

export function RunBar({ getCode, filename, beforeRun, harnessOf, initial }: RunBarProps) {
  const [start] = useState(() => runBarStart(initial));
  const [nodes, setNodes] = useState(start.nodes);
  const [duration, setDuration] = useState(start.duration);
  const [network, setNetwork] = useState(start.network);
  const [customNet, setCustomNet] = useState(start.customNet);
  const [loss, setLoss] = useState("");
  const [netFile, setNetFile] = useState<{ name: string; text: string } | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [asymmetric, setAsymmetric] = useState(false);
  const { scenarioId, setScenarioId, ownChurn, setOwnChurn, ownProblem, churnReady } = useChurnChoice();
  const [keepPopulation, setKeepPopulation] = useState(false);
  const [mode, setMode] = useState<RunMode>(start.mode);
  const [seed, setSeed] = useState(start.seed);
  const [modeError, setModeError] = useState<string | null>(null);
  const [withHarness, setWithHarness] = useState(start.withHarness);
  const [preparing, setPreparing] = useState(false);
  const createJob = useCreateJob();
  const navigate = useNavigate();

  // `runMode`: the editor's shortcut chose Run live or Simulate.
  const submit = async (event: FormEvent | null, runMode: RunMode = mode) => {
    event?.preventDefault();
    const code = getCode();
    if (code === null) return;
    const chosen = networkChoice(network, customNet, loss, netFile, asymmetric);
    if (typeof chosen === "string") {
      setFileError(chosen);
      return;
    }
    const run = modeChoice(runMode, seed, nodes);
    setModeError(typeof run === "string" ? run : null);
    if (typeof run === "string" || !churnReady()) return;
    setPreparing(true);
    await beforeRun?.().catch(() => undefined);
    setPreparing(false);
    createJob.mutate(
      { code, filename, ...runSize(nodes, duration, scenarioId !== ""), network: chosen,
        ...churnChoice(scenarioId, keepPopulation && !keepPopulationBlocked(runMode), ownChurn), ...run,
        ...(harnessOf && withHarness && runMode === "sim" ? { assignment: harnessOf.id } : {}) },
      { onSuccess: (job) => navigate(`/jobs/${job.id}`) },
    );
  };

  // A scenario decides the nodes and the duration (its node count and `stop`) unless typed in.
  const chooseScenario = (id: string) => {
    setScenarioId(id);
    setNodes(id ? "" : nodes || String(DEFAULT_NODES));
    setDuration(id ? "" : duration || String(DEFAULT_DURATION));
  };

  const pickFile = async (file: File | undefined) => {
    setNetFile(null);
    setFileError(null);
    if (!file) return;
    if (file.size > MAX_NETWORK_FILE_BYTES) {
      setFileError(`${file.name} is larger than 4 MB.`);
      return;
    }
    setNetFile({ name: file.name, text: await file.text() });
  };

  const busy = preparing || createJob.isPending;
  const loading = getCode() === null; // the file is not here yet: nothing to run
  useRunShortcut((m) => { if (!busy) { setMode(m); void submit(null, m); } });
  const churnError = createJob.isError ? churnErrorText(createJob.error) : null;
  return (
    <form className="run-bar" onSubmit={submit} aria-label="Run the code">
      <RunModeFields mode={mode} onMode={(m) => { setMode(m); setModeError(null); }} seed={seed} onSeed={setSeed} />
      <span className="run-field">
      <label htmlFor="run-nodes">Nodes</label>
      <input id="run-nodes" data-testid="run-nodes" type="number" min={1} max={MAX_NODES[mode]} step={1}
        required={!scenarioId} placeholder={scenarioId ? "auto" : undefined} aria-describedby="run-nodes-limit"
        title={scenarioId ? "Empty: the scenario decides" : undefined} value={nodes} onChange={(e) => setNodes(e.target.value)} />
      <span id="run-nodes-limit" className="muted run-limit" data-testid="run-nodes-limit">{nodeLimitText(mode)}</span>
      </span>
      <span className="run-field">
      <label htmlFor="run-duration">Duration ({mode === "sim" ? "virtual s" : "s"})</label>
      <input id="run-duration" data-testid="run-duration" type="number" min={1} step={1} required={!scenarioId}
        placeholder={scenarioId ? "auto" : undefined}
        title={scenarioId ? "Empty: the scenario decides" : undefined} value={duration} onChange={(e) => setDuration(e.target.value)} />
      </span>
      <span className="run-field">
      <label htmlFor="run-network">Network</label>
      <select id="run-network" data-testid="run-network" value={network}
        onChange={(e) => { setNetwork(e.target.value); setNetFile(null); setFileError(null); }}>
        {NETWORKS.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
      </select>
      </span>
      {network === "custom" && (
        <input aria-label="Network model" data-testid="run-network-custom" value={customNet}
          placeholder="e.g. transit-stub:2:4" onChange={(e) => setCustomNet(e.target.value)} />
      )}
      {(network === "matrix" || network === "trace") && (
        <input type="file" aria-label={`${network} file`} data-testid="run-network-file"
          accept=".csv,.txt,.e2e,text/plain,text/csv" onChange={(e) => void pickFile(e.target.files?.[0])} />
      )}
      {network === "matrix" && (
        <label title="Allow a matrix whose delay i→j differs from j→i">
          <input type="checkbox" checked={asymmetric} onChange={(e) => setAsymmetric(e.target.checked)} /> asymmetric
        </label>
      )}
      <span className="run-field">
      <label htmlFor="run-loss">Loss</label>
      <input id="run-loss" data-testid="run-loss" size={5} placeholder="0%" value={loss}
        onChange={(e) => setLoss(e.target.value)} />
      </span>
      <ChurnFields scenarioId={scenarioId} onScenarioId={chooseScenario} ownText={ownChurn} onOwnText={setOwnChurn} ownProblem={ownProblem}
        keepPopulation={keepPopulation} onKeepPopulation={setKeepPopulation} keepPopulationBlocked={keepPopulationBlocked(mode)} />
      {harnessOf && (
        <label className="run-field" title={mode === "sim" ? `The harness of ${harnessOf.title} runs with your code: its operations (say, each lookup) can be followed in the job's message diagram` : "Simulated runs only"}>
          <input type="checkbox" data-testid="run-with-harness" checked={withHarness && mode === "sim"} disabled={mode !== "sim"}
            onChange={(e) => setWithHarness(e.target.checked)} /> with the grader's harness
        </label>
      )}
      <RunButton busy={busy} loading={loading} mode={mode} />
      {modeError && <span className="error-text" role="alert" data-testid="run-mode-error">{modeError}</span>}
      {fileError && <span className="error-text" role="alert" data-testid="run-network-error">{fileError}</span>}
      {churnError && <span className="error-text" role="alert" data-testid="run-churn-error">{churnError}</span>}
      {createJob.isError && !churnError && <ErrorMessage error={createJob.error} title="Cannot start the job." />}
    </form>
  );
}
