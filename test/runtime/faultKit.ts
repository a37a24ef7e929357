/**
 * Tools for the fault-loop tests (faults.test.ts): how many rounds each variant runs (tunable
 * from the environment), a seeded random source so that a failing round can be replayed, a
 * register of the IDEs and Lua processes a test opened (closed after each test, whatever
 * happened), a free loopback port for an IDE that starts listening late, and the runtime's own
 * account of itself (`LuaPanda.getInfo()`) for failure messages.
 */
import { LuaInterpreter } from '../harness/interpreters';
import { LuaProcess } from '../harness/luaProcess';
import { TestIde } from '../harness/testIde';

/** A loopback port nobody listens on (for a program that starts before its IDE). */
export { quietPort as freePort } from '../harness/ports';
import { RawIde } from './rawIde';

/**
 * A positive whole number from the environment, or `fallback`. A fault loop is only as good as
 * its number of rounds, but ten variants × 100 rounds would take minutes in CI: the defaults keep
 * the whole file well under two minutes, and a soak run raises them (`LUAPANDA_FAULT_LOOPS=100`).
 */
export function countFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer: ${raw}`);
  return n;
}

/** One pure and one native variant run the full count; the others a sample of it. */
export function isFullVariant(lua: LuaInterpreter): boolean {
  return lua.command === 'lua5.4';
}

/** mulberry32: small, fast, and the same sequence for the same seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of this run: LUAPANDA_FAULT_SEED replays a failure, otherwise a fresh one. */
export function faultSeed(): number {
  const raw = process.env.LUAPANDA_FAULT_SEED;
  return raw ? Number(raw) >>> 0 : Math.floor(Math.random() * 2 ** 32);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Closable = TestIde | RawIde | LuaProcess;

/** What a test opened; `closeTracked` (afterEach) ends all of it. */
const tracked = new Set<Closable>();

export function track<T extends Closable>(thing: T): T {
  tracked.add(thing);
  return thing;
}

/** Closes one tracked IDE now (and forgets it). */
export async function closeIde(ide: TestIde | RawIde): Promise<void> {
  tracked.delete(ide);
  await ide.close();
}

export async function closeTracked(): Promise<void> {
  for (const thing of [...tracked]) {
    tracked.delete(thing);
    if (thing instanceof LuaProcess) {
      thing.kill();
      await thing.exited;
    } else {
      await thing.close();
    }
  }
}

/**
 * `LuaPanda.getInfo()` read through the REPL, for a failure message: what the runtime thinks of
 * its link, hooks and accelerator. Empty when there is no live, handshaken connection to ask.
 */
export async function runtimeInfo(ide: TestIde | undefined): Promise<string> {
  try {
    if (!ide || ide.connection.closed) return '';
    const reply = await ide.connection.request(
      'runREPLExpression',
      { Expression: 'LuaPanda.getInfo()', stackId: '2' },
      { timeoutMs: 2_000 },
    );
    return reply[0]?.value ?? '';
  } catch {
    return '';
  }
}

/** A test failure with what the Lua side said (stdout, stderr, getInfo()) attached. */
export async function withEvidence(
  context: string,
  error: unknown,
  lua: LuaProcess,
  ide?: TestIde,
): Promise<Error> {
  const info = await runtimeInfo(ide);
  const message = error instanceof Error ? error.message : String(error);
  // describe() ends with stderr's tail; an error's own line is at its head (a traceback follows).
  const stderrHead = lua.stderr ? `\n  stderr starts: ${lua.stderr.slice(0, 300)}` : '';
  return new Error(
    `${context}: ${message}\n  ${lua.describe()}${stderrHead}` +
      `\n  stdout: ${lua.stdout.slice(-300) || '(empty)'}` +
      (info ? `\n  getInfo(): ${info}` : ''),
  );
}
