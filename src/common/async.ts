/**
 * The small promise helpers every layer needs, written once: a delay that an abort cuts short, a
 * bounded wait (`withTimeout`, `settleWithin`) whose timer never outlives it, and a deferred.
 * Below every other layer; it imports nothing of the project.
 */

export interface TimerOptions {
  /** Ends the wait early (a delay resolves; it never rejects). */
  readonly signal?: AbortSignal;
  /** The timer does not keep Node running (for waits in shutdown paths). */
  readonly unref?: boolean;
}

/** Resolves after `ms`, or as soon as `signal` aborts. */
export function delay(ms: number, options: TimerOptions = {}): Promise<void> {
  const { signal } = options;
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    if (options.unref) timer.unref();
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done);
  });
}

/**
 * `promise`'s value, or `undefined` when `ms` pass first (a rejection passes through). The
 * promise itself goes on; the timer is cleared either way.
 */
export async function withTimeout<T>(
  promise: Promise<T>,
  ms: number,
  options: Pick<TimerOptions, 'unref'> = {},
): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
    if (options.unref) timer.unref();
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits for `work` to settle (its result and error ignored), but never longer than `ms`. */
export async function settleWithin(
  work: Promise<unknown> | undefined,
  ms: number,
  options: Pick<TimerOptions, 'unref'> = {},
): Promise<void> {
  if (!work) return;
  await withTimeout(
    work.then(
      () => undefined,
      () => undefined,
    ),
    ms,
    options,
  );
}

/** A promise with its resolve and reject functions, for a result that another callback settles. */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
