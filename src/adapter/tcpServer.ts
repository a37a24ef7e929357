/**
 * The adapter served over TCP, one `LuaDebugSession` per connection (`luapanda-dap --server`):
 * the way several clients share one adapter process, which VS Code's child sessions for further
 * games and the launches of a compound need.
 */
import * as net from 'node:net';
import { LuaDebugSession } from './luaDebugSession';

/** Listens on `host:port` (0: any free port); resolves with the listening server. */
export function serveAdapterOverTcp(port: number, host = '127.0.0.1'): Promise<net.Server> {
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    const session = new LuaDebugSession();
    session.setRunAsServer(true);
    socket.on('close', () => session.shutdown());
    session.start(socket, socket);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
