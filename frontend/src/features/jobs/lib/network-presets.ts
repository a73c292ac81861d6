/** Network presets (docs/network.md); every delay is one-way. "custom" opens a text field,
 * "matrix" and "trace" a file picker. "" sends no model: the code's descriptor decides. */
export const NETWORKS = [
  ["", "as the code says (else LAN)"],
  ["lan", "LAN (no emulation)"],
  ["const:50ms", "constant 50 ms one-way"],
  ["jitter:50ms:10ms", "50 ms ± 10 ms one-way"],
  ["transit-stub", "transit-stub (ModelNet-like)"],
  ["king", "King-calibrated (median RTT 134 ms)"],
  ["matrix", "delay matrix file…"],
  ["trace", "delay trace file…"],
  ["custom", "custom…"],
] as const;
