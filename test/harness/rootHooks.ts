/**
 * Mocha root hooks: no test may leave a Lua process, a socket or a server behind. Leftover Lua
 * processes are killed after each test (and the test fails, naming them); after the whole run the
 * process must hold no TCP handle or child process. A test whose test IDE saw frames that break
 * the protocol (testIde.ts) fails too, naming them.
 */
import { killAllLuaProcesses } from './luaProcess';
import { TestIde } from './testIde';

const LEAKY_RESOURCES = ['TCPSocketWrap', 'TCPServerWrap', 'ProcessWrap'];

function leakedResources(): string[] {
  return process.getActiveResourcesInfo().filter((name) => LEAKY_RESOURCES.includes(name));
}

/**
 * Per kind of handle, the tests after which one more was open than before (popped when one
 * closes): a leak found at the end names the tests it was first seen after.
 */
const openedAfter = new Map<string, string[]>();
function noteHandles(title: string): void {
  const counts = new Map<string, number>();
  for (const name of leakedResources()) counts.set(name, (counts.get(name) ?? 0) + 1);
  for (const name of LEAKY_RESOURCES) {
    const seen = openedAfter.get(name) ?? [];
    const now = counts.get(name) ?? 0;
    while (seen.length < now) seen.push(title);
    seen.length = Math.min(seen.length, now);
    openedAfter.set(name, seen);
  }
}

export const mochaHooks = {
  async afterEach(this: Mocha.Context): Promise<void> {
    const killed = await killAllLuaProcesses();
    const passed = this.currentTest?.state === 'passed';
    if (killed > 0 && passed) {
      throw new Error(`The test left ${killed} Lua process(es) running`);
    }
    noteHandles(this.currentTest?.fullTitle() ?? '?');
    const broken = TestIde.unexpectedProtocolErrors();
    if (broken.length > 0 && passed) {
      throw new Error(
        `The Lua side sent ${broken.length} frame(s) that break the protocol:\n  ${broken.join('\n  ')}`,
      );
    }
  },
  async afterAll(): Promise<void> {
    // Closing handles finish on the next turns of the event loop; give them a bounded moment.
    for (let i = 0; i < 40 && leakedResources().length > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const leaked = leakedResources();
    if (leaked.length > 0) {
      const suspects = [...new Set(leaked)].map(
        (name) => `${name} (first seen open after: ${(openedAfter.get(name) ?? []).join(' | ')})`,
      );
      throw new Error(`Tests left open handles behind: ${suspects.join('; ')}`);
    }
  },
};
