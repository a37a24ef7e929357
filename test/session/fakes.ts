// sinon fakes of a Lua connection and a connector, for unit tests of the session model.
import { EventEmitter } from 'node:events';
import * as sinon from 'sinon';
import type {
  LuaConnectionEvents,
  LuaNotification,
  LuaStackFrame,
  StopCommand,
} from '../../src/protocol';
import type { Connector } from '../../src/session/link/connectors';
import type { SessionConnection } from '../../src/session/types';

export type Replies = Record<string, (info: unknown) => unknown>;

/** Answers requests from `replies` by command (default `[]`); records every request. */
export class FakeConnection extends EventEmitter<LuaConnectionEvents> {
  closed = false;
  readonly request: sinon.SinonStub;
  readonly notify = sinon.stub().resolves();
  readonly destroy = sinon.stub().callsFake(() => this.drop());
  readonly close = sinon.stub().callsFake(async () => this.drop());

  constructor(public replies: Replies = {}) {
    super();
    this.request = sinon.stub().callsFake(async (cmd: string, info: unknown) => {
      if (this.closed) throw Object.assign(new Error('closed'), { code: 'connection-closed' });
      const reply = this.replies[cmd];
      return reply ? reply(info) : [];
    });
  }

  /** Commands sent, in order. */
  get sent(): string[] {
    return this.request.getCalls().map((call) => call.args[0] as string);
  }

  infoOf(cmd: string): unknown {
    return this.request.getCalls().find((call) => call.args[0] === cmd)?.args[1];
  }

  stop(cmd: StopCommand, stack: LuaStackFrame[], info = {}): void {
    const notification: LuaNotification = { kind: 'stop', cmd, stack, info };
    this.emit('notification', notification);
  }

  drop(): void {
    if (this.closed) return;
    this.closed = true;
    this.emit('close', {});
  }

  asConnection(): SessionConnection {
    return this as unknown as SessionConnection;
  }
}

export function fakeConnector(
  connections: FakeConnection[],
  mode: 'launch' | 'attach' = 'attach',
): Connector & { nextConnection: sinon.SinonStub; dispose: sinon.SinonStub } {
  let index = 0;
  return {
    mode,
    endpoint: '127.0.0.1:8818',
    canReconnect: true,
    nextConnection: sinon.stub().callsFake(async () => {
      const next = connections[index++];
      if (!next) throw Object.assign(new Error('no more'), { code: 'terminated' });
      return next.asConnection();
    }),
    dispose: sinon.stub().resolves(),
  };
}

export const frame = (
  line: number,
  index = 2,
  extra: Partial<LuaStackFrame> = {},
): LuaStackFrame => ({
  file: 'main.lua',
  oPath: 'main.lua',
  line,
  index,
  name: '文件名',
  ...extra,
});

export const ourRuntime = (features: string[]) => ({
  initSuccess: () => ({ runtime: 'luapanda-mcp', features, isNeedB64EncodeStr: false }),
});
