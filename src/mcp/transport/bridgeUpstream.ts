/**
 * One HTTP session of the bridge with the server: a Streamable HTTP client transport whose fetches
 * are watched, so that a server that went away (refused connection, 404 for our session, an event
 * stream that ended for good) or that refuses us (401, 403) is reported to the bridge as it happens.
 */
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { causeText } from './bridgeProbe';

/** One HTTP session with the server; a new one after each restart of the server. */
export interface Upstream {
  generation: number;
  transport: StreamableHTTPClientTransport;
}

export interface UpstreamWatch {
  /** The server went away or forgot the session; `cause` says how. */
  lost(cause: string): void;
  /** The server refuses us for good; `reason` is the whole sentence. */
  refused(reason: string): void;
  /** Any other error of the transport, as a message. */
  error(message: string): void;
}

export function createUpstream(
  endpoint: URL,
  headers: Record<string, string>,
  generation: number,
  watch: UpstreamWatch,
): Upstream {
  const href = endpoint.href;
  const watchedFetch: FetchLike = async (input, init) => {
    let response: Response;
    try {
      response = await fetch(input, init);
    } catch (error) {
      if (!init?.signal?.aborted) watch.lost(causeText(error));
      throw error;
    }
    const hadSession = new Headers(init?.headers).has('mcp-session-id');
    if (response.status === 401) {
      watch.refused(
        `The LuaPanda MCP server at ${href} refused the token (401): pass the right ` +
          `token, as set in luapanda.mcp.token.`,
      );
    } else if (response.status === 404 && hadSession) {
      watch.lost('it no longer knows this session (404): it was restarted or closed the session');
    } else if (response.status === 403) {
      watch.refused(`The LuaPanda MCP server at ${href} refused the request (403).`);
    }
    return response;
  };
  const transport = new StreamableHTTPClientTransport(endpoint, {
    fetch: watchedFetch,
    requestInit: { headers },
    // The GET stream ends when the server goes away: a retry or two tells a restart (404) from
    // an absence (refused), and either starts a new session.
    reconnectionOptions: {
      initialReconnectionDelay: 200,
      maxReconnectionDelay: 1000,
      reconnectionDelayGrowFactor: 2,
      maxRetries: 3,
    },
  });
  transport.onerror = (error) => {
    watch.error(error.message);
    if (/Maximum reconnection attempts/.test(error.message)) watch.lost('its event stream ended');
  };
  return { generation, transport };
}
