/**
 * The local backend's hook outbox, drained by the command that filled it. With `login --local` no server process
 * runs a dispatcher, so the events an update (or a stack's creation, removal, rename or import) writes to the data
 * folder's outbox would wait there forever; instead, each such write ends with one dispatcher run in the command's
 * own process, as gates already run there. It fans the events out to the hooks that want them (an event no hook
 * wants just leaves the outbox) and makes one attempt at each delivery that is due; a failed attempt is retried by a
 * later command's run (or a `stackyard serve` on the same folder: claims keep two dispatchers off the same work).
 */
import type { Storage } from '../../shared/ports/index.js';

/**
 * One dispatcher run on `storage`, with `stackyard serve`'s settings from `env` (retry policy, private receivers). A
 * failure never fails the command whose write is already done: the work stays in the folder, and the warning says so.
 */
export async function drainHookOutbox(storage: Storage, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  try {
    // Loaded only here: commands that raise no events never load the dispatcher.
    const [{ dispatchPending }, { serveHookSettings }] = await Promise.all([
      import('../../shared/core/hooks/dispatcher.js'),
      import('../../functions/serve/hook-dispatch.js'),
    ]);
    await dispatchPending(storage.hooks, storage.keys, serveHookSettings(env).hooks);
  } catch (error) {
    process.stderr.write(
      `warning: hook deliveries were not sent (${error instanceof Error ? error.message : String(error)}); they stay ` +
        'queued in the data folder for the next command, or for `stackyard serve --data-dir <folder>`\n',
    );
  }
}
