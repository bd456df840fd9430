import { LeaseHeldError, type LeaseHolder } from '../errors.js';

/**
 * The lease decisions in flight in this process: for each stack, at most one start at a time runs the gates, appends
 * its audit entry and makes the conditional write that grants the lease.
 *
 * Fifty starts that arrive together all read "no holder" before any of them has written. Without this, each would ask
 * the gates, append an audit entry and queue a conditional write that 49 of them lose. Instead, a start that finds a
 * decision in flight for its stack waits for that decision, reads the holder again (the waiters' reads arrive together
 * and share one storage read) and is refused by it, having written nothing. The grant itself is unchanged: one
 * conditional write, with expiry in its condition, which is also what decides between processes or Lambda instances.
 */
export class LeaseDecisions {
  private readonly inFlight = new Map<string, Promise<unknown>>();

  /**
   * Refuses `updateId` when `holder` (read by the caller) is another update's live lease; otherwise runs `grant` as
   * the stack's decision, after any decision already in flight here has settled and `readHolder` has not found a live
   * holder since.
   */
  async decide<T>(
    stackId: string,
    updateId: string,
    holder: LeaseHolder | undefined,
    readHolder: () => Promise<LeaseHolder | undefined>,
    grant: () => Promise<T>,
  ): Promise<T> {
    let seen = holder;
    for (;;) {
      if (seen && seen.updateId !== updateId) throw new LeaseHeldError(seen);
      const pending = this.inFlight.get(stackId);
      if (!pending) break;
      await pending.then(
        () => undefined,
        () => undefined,
      );
      seen = await readHolder();
    }
    // Nothing awaits between the check above and this registration, so one waiter at a time gets here.
    const decision = grant();
    this.inFlight.set(stackId, decision);
    const clear = () => {
      if (this.inFlight.get(stackId) === decision) this.inFlight.delete(stackId);
    };
    decision.then(clear, clear);
    return decision;
  }
}
