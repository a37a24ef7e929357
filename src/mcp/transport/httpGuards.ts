/**
 * The checks a local MCP server makes before it serves a request, as the MCP specification asks:
 * the Host and the Origin must name this loopback server (DNS-rebinding protection), and, when a
 * token is configured, the request must carry it as a bearer token. Each check says why it refuses
 * (for the log and the answer) and never repeats the credential.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type * as http from 'node:http';

const LOOPBACK_HOSTNAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);
const HOST_HEADER = /^(127\.0\.0\.1|localhost|\[::1\])(?::(\d{1,5}))?$/i;

/** Why a Host header is refused, or undefined when it names this loopback server. */
export function checkHost(host: string | undefined, port: number): string | undefined {
  if (!host) return 'missing Host header';
  const match = HOST_HEADER.exec(host.trim());
  if (!match) return `Host "${host}" is not a loopback name of this server`;
  const hostPort = match[2] === undefined ? 80 : Number(match[2]);
  if (hostPort !== port) return `Host "${host}" names port ${hostPort}, not ${port}`;
  return undefined;
}

/** Why an Origin header is refused, or undefined when absent or a local http(s) origin. */
export function checkOrigin(origin: string | undefined): string | undefined {
  if (origin === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return `Origin "${origin}" is not allowed`;
  }
  const local =
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.username === '' &&
    url.password === '' &&
    LOOPBACK_HOSTNAMES.has(url.hostname.toLowerCase());
  return local ? undefined : `Origin "${origin}" is not allowed (only local http(s) origins are)`;
}

/** Why a request is not one this loopback server on `port` may serve (Host first, then Origin),
 * or undefined when it may. */
export function checkLocalRequest(
  headers: http.IncomingHttpHeaders,
  port: number,
): string | undefined {
  return checkHost(headers.host, port) ?? checkOrigin(headers.origin);
}

/** Why an Authorization header does not carry the bearer token, or undefined when it does. */
export type BearerCheck = (authorization: string | undefined) => string | undefined;

/** The check of `Authorization: Bearer <token>` for one token (kept as a digest only). */
export function bearerCheck(token: string): BearerCheck {
  const tokenDigest = sha256(token);
  return (header) => {
    if (header === undefined) return 'missing Authorization header (a bearer token is required)';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match === null) return 'the Authorization header is not "Bearer <token>"';
    // Compare digests of equal length, so that neither the content nor the length leaks by timing.
    return timingSafeEqual(sha256(match[1]), tokenDigest) ? undefined : 'wrong bearer token';
  };
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
