/**
 * Bounded waits on something that changes (frames arriving, output growing): each wait re-runs
 * its check whenever `wake()` is called, resolves with the first value the check returns, rejects
 * when the check throws (the source ended) or when its time is up.
 */
export class Waiters {
  private readonly pending = new Set<() => void>();

  wait<T>(
    check: () => T | undefined,
    timeoutMs: number,
    describeTimeout: () => string,
  ): Promise<T> {
    return new Promise((resolve, reject) => {
      const attempt = () => {
        let value: T | undefined;
        try {
          value = check();
        } catch (error) {
          done();
          reject(error);
          return;
        }
        if (value !== undefined) {
          done();
          resolve(value);
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(describeTimeout()));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.pending.delete(attempt);
      };
      this.pending.add(attempt);
      attempt();
    });
  }

  /** Re-runs every pending check. */
  wake(): void {
    for (const attempt of [...this.pending]) attempt();
  }
}
