/**
 * How the engine schedules the steps of a program that registers many independent resources at once, and how it
 * saves them to a journal: the program gets its first resources back while later ones are still being checked,
 * steps share journal saves, and each create's begin entry is saved before its provider is asked to create.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JournalEntryKind, type JournalEntry } from '../../shared/core/journal/types.js';
import { FIXTURES, TestStack } from './engine-harness.js';

const PROGRAM = join(FIXTURES, 'programs/bench');
const COUNT = 60;
const config = { 'bench:count': { value: String(COUNT), secret: false } };

describe('engine step scheduling with many independent registrations', () => {
  it('finishes the first creates before the last resource is checked', { timeout: 60_000 }, async () => {
    const stack = new TestStack(PROGRAM, 'bench');

    const run = await stack.run('update', config, { parallel: 2 });

    expect(run.result.ok).toBe(true);
    const creates = run.steps.filter((s) => s.op === 'create' && s.type === 'testprov:index:Thing');
    const firstDone = creates.findIndex((s) => s.phase === 'done');
    const lastStart = creates.map((s) => s.phase).lastIndexOf('start');
    // a create's start event follows its check; with one queue, every check came before the first create finished
    expect(firstDone).toBeGreaterThanOrEqual(0);
    expect(firstDone).toBeLessThan(lastStart);
  });

  it('folds the saves of steps into shared journal appends, and appends each begin entry before its create', { timeout: 60_000 }, async () => {
    const stack = new TestStack(PROGRAM, 'bench');
    let appends = 0;
    const entries: JournalEntry[] = [];

    const run = await stack.run('update', config, {
      journal: {
        append: async (batch) => {
          appends++;
          entries.push(...batch);
          // the provider appends its own calls to the same log as they arrive, so order in the file is real order
          for (const e of batch) if (e.kind === JournalEntryKind.Begin && e.operation) appendFileSync(stack.log, `${JSON.stringify({ op: 'journal-begin', urn: e.operation.resource.urn })}\n`);
        },
      },
    });

    expect(run.result.ok).toBe(true);
    const log = readFileSync(stack.log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { op: string; urn: string });
    const creates = log.filter((c) => c.op === 'create');
    expect(creates).toHaveLength(COUNT);
    for (const create of creates) {
      const begun = log.findIndex((c) => c.op === 'journal-begin' && c.urn === create.urn);
      expect(begun, `${create.urn}: begin saved before create`).toBeGreaterThanOrEqual(0);
      expect(begun).toBeLessThan(log.indexOf(create));
    }
    // every resource has its begin and its success entry, yet they travelled in fewer appends than steps
    expect(entries.filter((e) => e.kind === JournalEntryKind.Begin && e.operation)).toHaveLength(COUNT);
    expect(appends).toBeLessThan(COUNT);
  });
});
