/**
 * The stdio bridge's end (stdioBridge.ts): it ends once, when stdin ends or closes, stdout fails,
 * `close()` is called, or the HTTP side fails. A failure is logged and every request still waiting
 * is answered with it; a clean end deletes the HTTP session so the server forgets it at once. Then
 * the session and stdio are closed and `done` resolves. The other parts ask `finished` before they
 * send anything.
 */
import type { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Readable, Writable } from 'node:stream';
import { deferred, settleWithin } from '../../common/async';
import { errorAnswer, type BridgeRequests } from './bridgeRequests';

export interface BridgeResult {
  /** 0 when stdin ended (the client closed us); 1 when the HTTP side failed. */
  exitCode: number;
  reason: string;
}

/** The HTTP session to close at the end: the newest made, and whether it was the one in use. */
export interface SessionAtEnd {
  transport?: StreamableHTTPClientTransport;
  inUse: boolean;
}

export interface ShutdownParts {
  stdin: Readable;
  stdout: Writable;
  stdio: StdioServerTransport;
  requests: BridgeRequests;
  log: (line: string) => void;
  /** Asked at the end only. */
  sessionAtEnd: () => SessionAtEnd;
}

export class BridgeShutdown {
  private result: BridgeResult | undefined;
  private readonly ended = deferred<BridgeResult>();
  /** Resolves once the bridge has stopped. */
  readonly done = this.ended.promise;
  private readonly onStdinEnd = (): void =>
    void this.finish({ exitCode: 0, reason: 'stdin ended' });
  private readonly onStdoutError = (error: NodeJS.ErrnoException): void =>
    void this.finish({ exitCode: 0, reason: `stdout closed (${error.code ?? error.message})` });

  constructor(private readonly parts: ShutdownParts) {
    parts.stdin.once('end', this.onStdinEnd);
    parts.stdin.once('close', this.onStdinEnd);
    parts.stdout.on('error', this.onStdoutError);
  }

  /** How the bridge ended; undefined while it runs. */
  get finished(): BridgeResult | undefined {
    return this.result;
  }

  /** Ends the bridge (once; a later call gets the first end's result). */
  async finish(result: BridgeResult): Promise<BridgeResult> {
    if (this.result) return this.done;
    this.result = result;
    const { stdin, stdout, stdio, requests, log } = this.parts;
    stdin.off('end', this.onStdinEnd);
    stdin.off('close', this.onStdinEnd);
    stdout.off('error', this.onStdoutError);
    const { transport: session, inUse } = this.parts.sessionAtEnd();
    if (result.exitCode !== 0) {
      log(result.reason);
      // Every request still waiting gets the reason, rather than silence.
      const answers = requests
        .waiting()
        .map((id) => stdio.send(errorAnswer(id, result.reason)).catch(() => undefined));
      await settleWithin(Promise.all(answers), 1000);
    } else if (session?.sessionId !== undefined && inUse) {
      // A clean end: end the HTTP session too, so the server forgets it at once.
      await settleWithin(session.terminateSession(), 2000);
    }
    requests.clear();
    await session?.close().catch(() => undefined);
    await stdio.close().catch(() => undefined);
    this.ended.resolve(result);
    return result;
  }

  /** The HTTP side failed for good. */
  fail(reason: string): Promise<BridgeResult> {
    return this.finish({ exitCode: 1, reason });
  }
}
