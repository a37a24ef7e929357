/**
 * Reading the JSON body of an MCP request within a bound: a body declared or streamed over the
 * limit is neither buffered nor parsed (the caller answers 413), and a body that is not JSON is told
 * apart from one that is too large (the caller answers 400).
 */
import type * as http from 'node:http';

export type BodyRead = { ok: true; value: unknown } | { ok: false; parseError: boolean };

/** Reads a JSON body of at most `limit` bytes. Over the limit (declared or streamed) it calls
 * `tooLarge` with what it saw, which answers 413; invalid JSON is reported as `parseError`. */
export function readJsonBody(
  req: http.IncomingMessage,
  limit: number,
  tooLarge: (seen: string) => void,
): Promise<BodyRead> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) {
    tooLarge(`Content-Length ${declared}`);
    req.resume();
    return Promise.resolve({ ok: false, parseError: false });
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        done = true;
        chunks.length = 0;
        req.off('data', onData);
        req.resume();
        tooLarge(`${size} bytes read so far`);
        resolve({ ok: false, parseError: false });
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('error', (error) => {
      if (!done) {
        done = true;
        reject(error);
      }
    });
    req.once('end', () => {
      if (done) return;
      done = true;
      try {
        resolve({ ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      } catch {
        resolve({ ok: false, parseError: true });
      }
    });
  });
}
