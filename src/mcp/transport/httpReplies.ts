/**
 * The JSON answers of the MCP HTTP server: a JSON document, or a JSON-RPC error with no id (what
 * the server says when it refuses a request before any MCP session sees it). Never cached, never
 * sniffed as another type.
 */
import type * as http from 'node:http';

const JSON_HEADERS = {
  'Content-Type': 'application/json',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

/** Answers `body` as JSON with `status`; a HEAD request gets the headers only. */
export function sendJson(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...JSON_HEADERS,
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(res.req.method === 'HEAD' ? undefined : text);
}

/** Answers a JSON-RPC error (`id: null`: it answers no particular message). */
export function sendJsonRpcError(
  res: http.ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers);
}

/** Answers a refused request with a JSON-RPC error and logs why (never the credential itself),
 * so that a user whose client gets 401/403/413 finds the reason in the MCP log. */
export function refuse(
  log: (line: string) => void,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  status: number,
  reason: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  log(`mcp http: refused ${req.method} ${req.url} with ${status}: ${reason}`);
  sendJsonRpcError(res, status, -32000, message, headers);
}
