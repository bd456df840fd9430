/**
 * Bounds how many provider operations run at once (`--parallel`).
 *
 * Calls that carry on a step already under way (a create or update after its check) go before calls that start a
 * new registration's provider work (its check, `admit`). A program registers its independent resources all at once;
 * with one queue in arrival order every check was answered before the first create began, so the program got its
 * first answer only after all the checks and sat idle until then. Pulumi checks in its step generator, outside the
 * `--parallel` workers, and hands each checked step to those workers at once; this keeps the same order of work for
 * each resource while never running more than `limit` provider calls.
 */
export class Semaphore {
  private active = 0;
  private readonly continuing: (() => void)[] = [];
  private readonly admitting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  /** Runs `fn` once a slot is free, ahead of every waiting `admit`. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    return this.enter(this.continuing, fn);
  }

  /** Runs `fn`, the first provider call of a new registration, once a slot is free and no `run` is waiting. */
  admit<T>(fn: () => Promise<T>): Promise<T> {
    return this.enter(this.admitting, fn);
  }

  private async enter<T>(queue: (() => void)[], fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((r) => queue.push(r));
    else this.active++;
    try {
      return await fn();
    } finally {
      // the slot passes straight to the next waiter, so `active` never drops while anyone waits
      const next = this.continuing.shift() ?? this.admitting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
