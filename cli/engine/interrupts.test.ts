import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { handleInterrupts, InterruptedError, type InterruptHost } from './interrupts.js';

class ExitCalled extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

function fakeProcess() {
  const emitter = new EventEmitter();
  const host = Object.assign(emitter, {
    exit: (code: number): never => {
      throw new ExitCalled(code);
    },
  }) as unknown as InterruptHost & EventEmitter;
  return host;
}

describe('interrupt handling', () => {
  it('stops gracefully on the first Ctrl-C and at once on the second, exiting 130', () => {
    const host = fakeProcess();
    let text = '';
    let killed = 0;
    const h = handleInterrupts({ write: (t) => (text += t), host, killChildren: () => void killed++ });
    expect(h.signal.aborted).toBe(false);
    host.emit('SIGINT');
    expect(h.signal.aborted).toBe(true);
    expect(h.signal.reason).toBeInstanceOf(InterruptedError);
    expect((h.signal.reason as Error).message).toBe('stopped by Ctrl-C');
    expect(text).toContain('^C received: finishing the operations in progress, then stopping. Press ^C again to stop at once.');
    expect(killed).toBe(0);
    expect(() => host.emit('SIGINT')).toThrow(new ExitCalled(130));
    expect(killed).toBe(1);
    expect(text).toContain('stopping at once. Operations in progress stay recorded as pending');
    h.dispose();
    expect(host.listenerCount('SIGINT')).toBe(0);
    expect(host.listenerCount('SIGTERM')).toBe(0);
  });

  it('exits 143 when the second interrupt is SIGTERM', () => {
    const host = fakeProcess();
    const h = handleInterrupts({ write: () => undefined, host, killChildren: () => undefined });
    host.emit('SIGTERM');
    expect((h.signal.reason as Error).message).toBe('stopped by SIGTERM');
    expect(() => host.emit('SIGTERM')).toThrow(new ExitCalled(143));
    h.dispose();
  });
});
