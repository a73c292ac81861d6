/** The controller refuses larger files (backend/lib/network.py). */
export const MAX_NETWORK_FILE_BYTES = 4 * 1024 * 1024;

export type NetworkChoice = { net?: string; loss?: string; file_text?: string; asymmetric?: boolean };

/** What the run bar sends as `network`, or an error naming what is missing. */
export function networkChoice(network: string, custom: string, loss: string,
  file: { name: string; text: string } | null, asymmetric: boolean): NetworkChoice | string {
  const choice: NetworkChoice = loss.trim() ? { loss: loss.trim() } : {};
  if (network === "matrix" || network === "trace") {
    if (!file) return `Choose a ${network} file (docs/network.md lists the formats).`;
    return { ...choice, net: `${network}:${file.name}`, file_text: file.text,
      ...(network === "matrix" && asymmetric ? { asymmetric: true } : {}) };
  }
  const net = network === "custom" ? custom.trim() : network;
  return net ? { ...choice, net } : choice;
}
