/**
 * Mocha root hooks: no test may leave a Lua process, a socket or a server behind. Leftover Lua
 * processes are killed after each test (and the test fails, naming them); after the whole run the
 * process must hold no TCP handle or child process.
 */
import { killAllLuaProcesses } from './luaProcess';

const LEAKY_RESOURCES = ['TCPSocketWrap', 'TCPServerWrap', 'ProcessWrap'];

function leakedResources(): string[] {
  return process.getActiveResourcesInfo().filter((name) => LEAKY_RESOURCES.includes(name));
}

export const mochaHooks = {
  async afterEach(this: Mocha.Context): Promise<void> {
    const killed = await killAllLuaProcesses();
    if (killed > 0 && this.currentTest?.state === 'passed') {
      throw new Error(`The test left ${killed} Lua process(es) running`);
    }
  },
  async afterAll(): Promise<void> {
    // Closing handles finish on the next turns of the event loop; give them a bounded moment.
    for (let i = 0; i < 40 && leakedResources().length > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const leaked = leakedResources();
    if (leaked.length > 0) throw new Error(`Tests left open handles behind: ${leaked.join(', ')}`);
  },
};
