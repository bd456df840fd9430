import { describe, expect, it } from 'vitest';
import { Semaphore } from './semaphore.js';

/** A call that logs its name once it has a slot and holds the slot until `finish()`. */
function gated(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  return {
    name,
    fn: async () => {
      log.push(name);
      await done;
    },
    finish,
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('Semaphore', () => {
  it('gives a freed slot to a waiting run before any waiting admit, each lane in arrival order', async () => {
    const sem = new Semaphore(1);
    const started: string[] = [];
    const first = gated(started, 'admit-1');
    const calls = [sem.admit(first.fn)];
    const rest = ['admit-2', 'admit-3', 'run-1', 'run-2'].map((name) => gated(started, name));
    for (const g of rest) calls.push(g.name.startsWith('run') ? sem.run(g.fn) : sem.admit(g.fn));
    await tick();
    expect(started).toEqual(['admit-1']);

    first.finish();
    for (const g of rest) {
      await tick();
      g.finish();
    }
    await Promise.all(calls);

    expect(started).toEqual(['admit-1', 'run-1', 'run-2', 'admit-2', 'admit-3']);
  });

  it('never runs more than its limit at once, across both lanes', async () => {
    const sem = new Semaphore(3);
    let active = 0;
    let most = 0;
    const work = async () => {
      active++;
      most = Math.max(most, active);
      await tick();
      active--;
    };
    await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? sem.run(work) : sem.admit(work))));
    expect(most).toBe(3);
    expect(active).toBe(0);
  });
});
