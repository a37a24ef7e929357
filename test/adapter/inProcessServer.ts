/**
 * The adapter served from the test's own process over TCP, as `luapanda-dap --server` serves it:
 * one `LuaDebugSession` per connection, so that several DebugClients share one adapter process
 * (its child sessions for further games, two launches of a compound).
 */
import * as net from 'node:net';
import { LuaDebugSession } from '../../src/adapter';

export interface InProcessAdapter {
  readonly port: number;
  close(): Promise<void>;
}

export async function serveAdapterInProcess(): Promise<InProcessAdapter> {
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    const session = new LuaDebugSession();
    session.setRunAsServer(true);
    socket.on('close', () => session.shutdown());
    session.start(socket, socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
