/**
 * A DAP client for an adapter that runs in this process: it speaks to any object with
 * `handleMessage` and `onDidSendMessage` (a `DebugSession` of @vscode/debugadapter, or anything
 * VS Code could run inline). Requests are bounded by a timeout; events go to listeners; reverse
 * requests go to `reverseRequests` handlers (the headless host serves `startDebugging`), and those
 * without one (runInTerminal) are refused cleanly.
 */
import { EventEmitter } from 'node:events';
import type { DebugProtocol } from '@vscode/debugprotocol';

/**
 * The in-process adapter shape (the same as VS Code's `DebugAdapter`). Adapters type what they
 * send as an opaque object, so the client checks each message's shape itself.
 */
export interface DapEndpoint {
  handleMessage(message: DebugProtocol.ProtocolMessage): void;
  onDidSendMessage(listener: (message: object) => void): { dispose(): unknown };
  dispose(): unknown;
}

export class DapRequestError extends Error {
  override readonly name = 'DapRequestError';
  constructor(
    readonly command: string,
    message: string,
    /** The adapter's error id (`body.error.id`), when it gave one. */
    readonly errorId?: number,
    /** No response came within the client's own timeout. */
    readonly timedOut = false,
  ) {
    super(message);
  }
}

export const DEFAULT_DAP_TIMEOUT_MS = 15_000;

interface PendingRequest {
  readonly command: string;
  /** With the response's body and its place among the adapter's messages (`seq`). */
  readonly resolve: (body: unknown, seq: number) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

export interface DapClientEvents {
  event: [DebugProtocol.Event];
}

/** Answers a reverse request with its response body; a rejection is the failure's message. */
export type ReverseRequestHandler = (args: unknown) => Promise<unknown>;

export class DapClient extends EventEmitter<DapClientEvents> {
  /** The reverse requests this client serves, by command. */
  readonly reverseRequests = new Map<string, ReverseRequestHandler>();
  private seq = 1;
  private readonly pending = new Map<number, PendingRequest>();
  private readonly subscription: { dispose(): unknown };
  private disposed = false;

  constructor(private readonly endpoint: DapEndpoint) {
    super();
    this.subscription = endpoint.onDidSendMessage((message) => this.receive(message));
  }

  request<T = unknown>(
    command: string,
    args?: unknown,
    timeoutMs = DEFAULT_DAP_TIMEOUT_MS,
  ): Promise<T> {
    return this.requestInOrder<T>(command, args, timeoutMs).then(({ body }) => body);
  }

  /**
   * A request whose answer comes with the response's `seq`: the adapter numbers every message it
   * sends, and events are delivered at once while a response's caller resumes later, so a caller
   * that also follows events (breakpoint changes) can tell which of the two is the newer.
   */
  requestInOrder<T = unknown>(
    command: string,
    args?: unknown,
    timeoutMs = DEFAULT_DAP_TIMEOUT_MS,
  ): Promise<{ body: T; seq: number }> {
    if (this.disposed) {
      return Promise.reject(new DapRequestError(command, 'The debug session has ended.'));
    }
    const seq = this.seq++;
    return new Promise<{ body: T; seq: number }>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(seq);
        reject(
          new DapRequestError(
            command,
            `The debug adapter did not answer '${command}' within ${timeoutMs} ms.`,
            undefined,
            true,
          ),
        );
      }, timeoutMs);
      this.pending.set(seq, {
        command,
        resolve: (body, responseSeq) => resolve({ body: body as T, seq: responseSeq }),
        reject,
        timer,
      });
      const request: DebugProtocol.Request = { seq, type: 'request', command, arguments: args };
      // Deliver asynchronously, as a transport would: the caller may still be registering listeners.
      queueMicrotask(() => {
        try {
          this.endpoint.handleMessage(request);
        } catch (error) {
          this.settle(
            seq,
            undefined,
            `The debug adapter failed on '${command}': ${(error as Error).message}`,
          );
        }
      });
    });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.subscription.dispose();
    for (const [seq] of this.pending) this.settle(seq, undefined, 'The debug session has ended.');
  }

  private receive(sent: object): void {
    const message = sent as Partial<DebugProtocol.ProtocolMessage>;
    if (message.type === 'response') {
      const response = message as DebugProtocol.Response;
      const error = response.success ? undefined : describeFailure(response);
      const errorId = (response as DebugProtocol.ErrorResponse).body?.error?.id;
      this.settle(response.request_seq, response.body, error, errorId, response.seq);
    } else if (message.type === 'event') {
      this.emit('event', message as DebugProtocol.Event);
    } else if (message.type === 'request') {
      void this.answer(message as DebugProtocol.Request);
    }
  }

  private async answer(request: DebugProtocol.Request): Promise<void> {
    const handler = this.reverseRequests.get(request.command);
    let outcome: { body?: unknown; failure?: string };
    if (!handler) {
      outcome = { failure: `'${request.command}' is not supported by the headless debugger host.` };
    } else {
      try {
        outcome = { body: await handler(request.arguments) };
      } catch (error) {
        outcome = { failure: (error as Error).message };
      }
    }
    if (this.disposed) return;
    const response: DebugProtocol.Response = {
      seq: this.seq++,
      type: 'response',
      request_seq: request.seq,
      command: request.command,
      success: outcome.failure === undefined,
      ...(outcome.failure !== undefined ? { message: outcome.failure } : {}),
      ...(outcome.body !== undefined ? { body: outcome.body } : {}),
    };
    queueMicrotask(() => this.endpoint.handleMessage(response));
  }

  private settle(
    seq: number,
    body: unknown,
    error?: string,
    errorId?: number,
    responseSeq = 0,
  ): void {
    const entry = this.pending.get(seq);
    if (!entry) return;
    this.pending.delete(seq);
    clearTimeout(entry.timer);
    if (error !== undefined) entry.reject(new DapRequestError(entry.command, error, errorId));
    else entry.resolve(body, responseSeq);
  }
}

/** The user-facing message of a failed DAP response (with its `{var}` placeholders filled in). */
function describeFailure(response: DebugProtocol.Response): string {
  const detail = (response as DebugProtocol.ErrorResponse).body?.error;
  if (detail?.format) {
    const variables = detail.variables ?? {};
    return detail.format.replace(/\{(\w+)\}/g, (whole, name: string) => variables[name] ?? whole);
  }
  return response.message || `'${response.command}' failed`;
}
