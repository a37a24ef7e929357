/**
 * The `/health` document of the MCP HTTP server, which tells which LuaPanda MCP server (which VS
 * Code window, which headless process) answers on a port, and `fetchHealth` that asks for it.
 */

/** The name `/health` reports, so that a probe can tell our server from another program. */
export const HEALTH_SERVER_NAME = 'luapanda-mcp';

/** What `GET /health` answers. */
export interface HealthInfo {
  name: typeof HEALTH_SERVER_NAME;
  version: string;
  pid: number;
  port: number;
  workspace: string | null;
  startedAt: string;
  instanceId: string;
  url: string;
  sessions: number;
}

/**
 * Asks `http://127.0.0.1:<port>/health` who serves there: our server's `HealthInfo`, or undefined
 * when nothing answers, something else answers, or no answer comes within `timeoutMs` (default
 * 1000). Used to tell VS Code windows (and headless servers) apart.
 */
export async function fetchHealth(
  port: number,
  options: { timeoutMs?: number } = {},
): Promise<HealthInfo | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health`, {
      signal: AbortSignal.timeout(options.timeoutMs ?? 1000),
    });
    const text = await response.text();
    if (!response.ok) return undefined;
    const info = JSON.parse(text) as Partial<HealthInfo> | null;
    return info?.name === HEALTH_SERVER_NAME && typeof info.instanceId === 'string'
      ? (info as HealthInfo)
      : undefined;
  } catch {
    return undefined;
  }
}
