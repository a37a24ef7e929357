/**
 * `useDapTest()`: the set-up every adapter test suite shares, in one call. It opens a fresh
 * `DapTest` (adapter process and DebugClient) before each test of the enclosing `describe` and
 * closes it after, and returns a stand-in that always reaches the current test's `DapTest`, so a
 * suite writes `const t = useDapTest();` where it wrote a `let`, a `beforeEach` and an `afterEach`.
 */
import { DapTest } from './dapHarness';

export function useDapTest(): DapTest {
  let current: DapTest | undefined;
  beforeEach(async () => {
    current = await new DapTest().open();
  });
  afterEach(async () => {
    const t = current;
    current = undefined;
    await t?.close();
  });
  const now = (): DapTest => {
    if (current === undefined) throw new Error('useDapTest: the DapTest is used outside a test');
    return current;
  };
  // A proxy rather than a getter function keeps each test's `t.launch(…)`, `t.dc` and helpers
  // that take a `DapTest` unchanged; methods are bound to the current instance.
  return new Proxy({} as DapTest, {
    get(_, key) {
      const t = now();
      const value: unknown = Reflect.get(t, key, t);
      return typeof value === 'function' ? value.bind(t) : value;
    },
    set(_, key, value) {
      return Reflect.set(now(), key, value);
    },
  });
}
