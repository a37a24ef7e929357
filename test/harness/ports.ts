/**
 * Ports for tests and benchmarks where a Lua program connects to a port before (or while)
 * nothing listens there.
 */
import * as net from 'node:net';

/**
 * A free loopback port below Linux's ephemeral range (32768–60999). A game retries `connect` to a
 * port where nothing listens; had the port come from that range (as `listen(0)` ports do), one
 * retry in ~28,000 gets the same port as its own source port and connects to itself (TCP
 * simultaneous open), holding the port the IDE wants to listen on.
 */
export async function quietPort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen({ port, host: '127.0.0.1' }, () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error('No free port found in 20000–31999');
}
