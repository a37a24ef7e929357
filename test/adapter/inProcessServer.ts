/**
 * The adapter served from the test's own process over TCP, as `luapanda-dap --server` serves it:
 * one `LuaDebugSession` per connection, so that several DebugClients share one adapter process
 * (its child sessions for further games, two launches of a compound).
 */
import type * as net from 'node:net';
import { serveAdapterOverTcp } from '../../src/adapter';

export interface InProcessAdapter {
  readonly port: number;
  close(): Promise<void>;
}

export async function serveAdapterInProcess(): Promise<InProcessAdapter> {
  const server = await serveAdapterOverTcp(0);
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
