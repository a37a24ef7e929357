/**
 * Reachability of the HTTP server behind the stdio bridge: one `/health` probe, and a bounded wait
 * that probes until the server answers (VS Code started after the MCP client, a window reloading).
 */
import { delay } from '../../common/async';
import { HEALTH_SERVER_NAME } from './http';

export type ProbeResult =
  | { ok: true; /** The `/health` document, when the server is ours. */ health?: HealthLine }
  | { ok: false; cause: string };

export interface HealthLine {
  version: string;
  pid: string;
  workspace: string;
}

/** One GET of `/health` at the endpoint's origin. Any HTTP answer counts as reachable. */
export async function probeOnce(
  endpoint: URL,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<ProbeResult> {
  let response: Response;
  try {
    response = await fetch(new URL('/health', endpoint), {
      headers,
      signal: AbortSignal.timeout(Math.max(1, timeoutMs)),
    });
  } catch (error) {
    return { ok: false, cause: causeText(error) };
  }
  const text = await response.text().catch(() => '');
  // Some other server: the MCP exchange itself will tell what is wrong.
  if (!response.ok) return { ok: true };
  try {
    const info = JSON.parse(text) as Record<string, unknown>;
    if (info.name !== HEALTH_SERVER_NAME) return { ok: true };
    return {
      ok: true,
      health: {
        version: String(info.version),
        pid: String(info.pid),
        workspace: String(info.workspace),
      },
    };
  } catch {
    return { ok: true };
  }
}

export interface WaitOptions {
  /** The failed probe that made the bridge wait: the cause to report if no later probe has one. */
  lastFailure?: ProbeResult;
  headers: Record<string, string>;
  /** `Date.now()` value after which the wait gives up. */
  deadline: number;
  probeTimeoutMs: number;
  /** Pause between two probes. */
  intervalMs: number;
  /** True once the bridge has ended: stop waiting. */
  stopped: () => boolean;
}

/**
 * Probes until the server answers, the deadline passes or the bridge stops; the last result. A
 * last probe that the deadline cut short says only "no answer in time": the probe before it,
 * which had its full time, tells the real cause (ECONNREFUSED…).
 */
export async function waitForServer(endpoint: URL, options: WaitOptions): Promise<ProbeResult> {
  let previous = options.lastFailure;
  for (;;) {
    const remaining = options.deadline - Date.now();
    const timeoutMs = Math.min(options.probeTimeoutMs, Math.max(remaining, 1));
    const result = await probeOnce(endpoint, options.headers, timeoutMs);
    if (result.ok || options.stopped()) return result;
    const left = options.deadline - Date.now();
    if (left <= 0) {
      const cutShort = timeoutMs < options.probeTimeoutMs && result.cause === NO_ANSWER;
      return cutShort && previous ? previous : result;
    }
    previous = result;
    await delay(Math.min(options.intervalMs, left));
    if (options.stopped()) return result;
  }
}

export function describeHealth(health: HealthLine | undefined): string {
  return health
    ? ` (luapanda-mcp ${health.version}, pid ${health.pid}, workspace ${health.workspace})`
    : '';
}

const NO_ANSWER = 'no answer in time';

export function causeText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // fetch() failures say "fetch failed" and keep the useful part (ECONNREFUSED …) in `cause`.
  const cause = (error as Error & { cause?: unknown }).cause;
  if (cause instanceof Error && cause.message) return `${error.message} (${cause.message})`;
  if (error.name === 'TimeoutError') return NO_ANSWER;
  return error.message;
}
