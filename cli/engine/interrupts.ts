/**
 * Ctrl-C and SIGTERM during an engine command. The first one stops gracefully: no new step starts, the steps in
 * progress finish and are saved, and the operation completes as cancelled (releasing its lease). The second one
 * stops at once: engine child processes are killed and the process exits 130 (SIGINT) or 143 (SIGTERM); operations
 * that were in progress stay recorded as pending in the last save, for `stackyard refresh` to resolve.
 */
import { killEngineChildren } from './plugins/child-processes.js';

/** What interrupt handling needs from the process; injectable for tests. */
export interface InterruptHost {
  on(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
  removeListener(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
  exit(code: number): never;
}

/** Installed handlers: `signal` aborts on the first interrupt; `dispose()` removes the handlers. */
export interface InterruptHandling {
  signal: AbortSignal;
  dispose(): void;
}

const EXIT_CODE = { SIGINT: 130, SIGTERM: 143 } as const;

/** Thrown into the run as the abort reason of a graceful stop. */
export class InterruptedError extends Error {
  override readonly name = 'InterruptedError';
  constructor(readonly signalName: 'SIGINT' | 'SIGTERM') {
    super(`stopped by ${signalName === 'SIGINT' ? 'Ctrl-C' : 'SIGTERM'}`);
  }
}

/** Installs the two-stage handlers for SIGINT and SIGTERM. */
export function handleInterrupts(o: { write: (text: string) => void; host?: InterruptHost; killChildren?: () => void }): InterruptHandling {
  const host: InterruptHost = o.host ?? (process as unknown as InterruptHost);
  const abort = new AbortController();
  const on = (name: 'SIGINT' | 'SIGTERM') => () => {
    const key = name === 'SIGINT' ? '^C' : 'SIGTERM';
    if (!abort.signal.aborted) {
      o.write(`\n${key} received: finishing the operations in progress, then stopping. ${key === '^C' ? 'Press ^C' : 'Send SIGTERM'} again to stop at once.\n`);
      abort.abort(new InterruptedError(name));
      return;
    }
    o.write(
      `\n${key} received again: stopping at once. Operations in progress stay recorded as pending in the stack's state; ` +
        'run `stackyard refresh` to resolve them. The stack stays locked until its lease expires or `stackyard cancel` is run.\n',
    );
    (o.killChildren ?? killEngineChildren)();
    host.exit(EXIT_CODE[name]);
  };
  const onInt = on('SIGINT');
  const onTerm = on('SIGTERM');
  host.on('SIGINT', onInt);
  host.on('SIGTERM', onTerm);
  return {
    signal: abort.signal,
    dispose: () => {
      host.removeListener('SIGINT', onInt);
      host.removeListener('SIGTERM', onTerm);
    },
  };
}
