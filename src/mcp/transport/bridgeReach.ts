/**
 * How the bridge reaches its HTTP server before opening a session: a probe, and when the server
 * is away, a wait within the bound (announced once), ending with the server's health or with the
 * sentence that says why the bridge gives up.
 */
import { probeOnce, waitForServer, type HealthLine, type ProbeResult } from './bridgeProbe';

/** Pause between two probes while the server is away. */
export const PROBE_INTERVAL_MS = 250;

export interface ReachOptions {
  endpoint: URL;
  headers: Record<string, string>;
  probeTimeoutMs: number;
  /** How long to wait for an absent server; 0 probes once. */
  waitSeconds: number;
  /** What the user may check, appended to the reason for giving up after a wait. */
  hint: string;
  log: (line: string) => void;
  /** True once the bridge has ended: stop waiting. */
  stopped: () => boolean;
  intervalMs?: number;
}

export type Reached = { ok: true; health?: HealthLine } | { ok: false; reason: string };

/** Reaches the server, or says why not; `known` is a probe already made (used when it succeeded). */
export async function reachServer(options: ReachOptions, known?: ProbeResult): Promise<Reached> {
  if (known?.ok) return known;
  const { endpoint, headers, probeTimeoutMs, waitSeconds } = options;
  const href = endpoint.href;
  const waitMs = waitSeconds * 1000;
  let reached = await probeOnce(endpoint, headers, probeTimeoutMs);
  if (!reached.ok && waitMs > 0 && !options.stopped()) {
    options.log(
      `waiting up to ${waitSeconds} s for the LuaPanda MCP server at ${href} (${reached.cause})`,
    );
    reached = await waitForServer(endpoint, {
      lastFailure: reached,
      headers,
      deadline: Date.now() + waitMs,
      probeTimeoutMs,
      intervalMs: options.intervalMs ?? PROBE_INTERVAL_MS,
      stopped: options.stopped,
    });
  }
  if (reached.ok) return reached;
  return {
    ok: false,
    reason:
      waitMs > 0
        ? `Gave up waiting for the LuaPanda MCP server at ${href} after ${waitSeconds} s: ` +
          `${reached.cause}. ${options.hint}`
        : `Lost the LuaPanda MCP server at ${href}: ${reached.cause}.`,
  };
}
