/**
 * How VS Code windows hand the MCP server over to one another. The serving window writes a
 * control record — its instance id and a random control token — to a file in the extension's
 * global storage (shared by all windows of one user, unreadable to others), and answers
 * `POST /luapanda/control/handover` only when the request carries that token. A window that
 * wants the port reads the record, checks that it names the server answering on the port, and
 * asks it to step down. There is no open shutdown endpoint.
 */
import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type * as http from 'node:http';
import * as path from 'node:path';

export const CONTROL_PATH = '/luapanda/control/handover';
export const CONTROL_HEADER = 'x-luapanda-control-token';

export interface ControlRecord {
  readonly port: number;
  readonly instanceId: string;
  readonly token: string;
  readonly pid: number;
  readonly workspace: string | null;
}

export function newControlToken(): string {
  return randomBytes(32).toString('hex');
}

export function controlFile(dir: string, port: number): string {
  return path.join(dir, `mcp-control-${port}.json`);
}

export async function writeControlRecord(dir: string, record: ControlRecord): Promise<void> {
  await fs.mkdir(dir, { recursive: true });
  const file = controlFile(dir, record.port);
  const temp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(temp, JSON.stringify(record), { mode: 0o600 });
  await fs.rename(temp, file);
}

export async function readControlRecord(
  dir: string,
  port: number,
): Promise<ControlRecord | undefined> {
  try {
    const value = JSON.parse(await fs.readFile(controlFile(dir, port), 'utf8')) as ControlRecord;
    return typeof value.token === 'string' && typeof value.instanceId === 'string'
      ? value
      : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the record if it is still ours (another window may have replaced it). */
export async function removeControlRecord(
  dir: string,
  port: number,
  instanceId: string,
): Promise<void> {
  const current = await readControlRecord(dir, port);
  if (current?.instanceId === instanceId) {
    await fs.rm(controlFile(dir, port), { force: true });
  }
}

export interface HandoverRequest {
  readonly workspace: string | null;
}

/**
 * The route for `startHttpServer({routes})`: answers the control path only, with 401 unless the
 * control token matches, and calls `onHandover` after the answer was sent.
 */
export function controlRoute(
  token: string,
  onHandover: (request: HandoverRequest) => void,
): (req: http.IncomingMessage, res: http.ServerResponse, pathname: string) => Promise<boolean> {
  const digest = sha256(token);
  return async (req, res, pathname) => {
    if (pathname !== CONTROL_PATH) return false;
    const send = (status: number, body: unknown): void => {
      const text = JSON.stringify(body);
      res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
      res.end(text);
    };
    if (req.method !== 'POST') {
      send(405, { error: 'POST only' });
      return true;
    }
    const header = req.headers[CONTROL_HEADER];
    const given = Array.isArray(header) ? header[0] : header;
    if (!given || !timingSafeEqual(sha256(given), digest)) {
      req.resume();
      send(401, { error: 'control token missing or wrong' });
      return true;
    }
    const body = await readSmallBody(req);
    let request: HandoverRequest = { workspace: null };
    try {
      const parsed = JSON.parse(body || '{}') as { workspace?: unknown };
      request = { workspace: typeof parsed.workspace === 'string' ? parsed.workspace : null };
    } catch {
      // the body is informational only
    }
    send(200, { ok: true });
    res.once('finish', () => setImmediate(() => onHandover(request)));
    return true;
  };
}

/** Asks the server on `port` (described by `record`) to hand over; resolves whether it agreed. */
export async function requestHandover(
  record: ControlRecord,
  workspace: string | null,
  timeoutMs = 3000,
): Promise<{ ok: boolean; status?: number; message?: string }> {
  try {
    const response = await fetch(`http://127.0.0.1:${record.port}${CONTROL_PATH}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [CONTROL_HEADER]: record.token },
      body: JSON.stringify({ workspace }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.text();
    return { ok: response.ok, status: response.status };
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function readSmallBody(req: http.IncomingMessage, limit = 16 * 1024): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      if (text.length < limit) text += chunk;
    });
    req.once('end', () => resolve(text.slice(0, limit)));
    req.once('error', () => resolve(''));
  });
}
