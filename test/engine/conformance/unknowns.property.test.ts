/**
 * Property: an unknown value never reaches a stored output or checkpoint as if it were known, whatever the program
 * (resources feeding each other and the stack's outputs), whatever the run (preview, update, `--target` naming some,
 * none or a missing resource, with or without `--continue-on-error`), and however it ends (a failed create, a program
 * that throws).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UNKNOWN } from '../../../cli/engine/resource/properties.js';
import { conformanceStack, persistedUnknown, type ProgramSpec, type ResourceSpec } from './conformance-harness.js';

interface Shape {
  value: number;
  /** Index of an earlier resource feeding this one. */
  ref?: number;
  fail: boolean;
}

const shape = fc.record({ value: fc.integer({ min: 0, max: 3 }), ref: fc.option(fc.nat(5), { nil: undefined }), fail: fc.boolean() });

/** The program of `shapes`: resources `r<i>`, each possibly fed by an earlier one, every one named in the outputs. */
function program(shapes: Shape[], allowFailures: boolean): ProgramSpec {
  const name = (i: number) => `r${i}`;
  const resources: ResourceSpec[] = shapes.map((r, i) => ({
    name: name(i),
    props: { value: r.value, ...(allowFailures && r.fail ? { fail: 'create' } : {}) },
    ...(r.ref !== undefined && r.ref < i ? { refs: { upstream: name(r.ref) } } : {}),
  }));
  return { resources, outputs: Object.fromEntries(shapes.flatMap((_, i) => [[`id${i}`, name(i)], [`value${i}`, `${name(i)}.value`]])) };
}

describe('conformance: unknown values are never stored as known', () => {
  it('holds for previews, targeted updates and failures over generated programs', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(shape, { minLength: 1, maxLength: 3 }),
        fc.array(shape, { minLength: 1, maxLength: 2 }),
        fc.constantFrom<'preview' | 'update'>('preview', 'update', 'update'),
        fc.subarray(['r0', 'r1', 'r2', 'r3', 'missing']),
        fc.boolean(),
        fc.boolean(),
        async (existing, added, kind, targetNames, throws, continueOnError) => {
          const stack = conformanceStack();
          const initial = await stack.deploy('update', program(existing, false));
          // the added resources are new; unless targeted they are not created and their outputs stay unknown
          const next = program([...existing.map((s) => ({ ...s, value: s.value + 1 })), ...added], true);
          if (throws) next.throwAfterRegistering = 'generated failure';

          const run = await stack.deploy(kind, next, { targeting: { targets: targetNames.map((n) => stack.urn(n)) }, continueOnError });

          expect(persistedUnknown(initial)).toBe(false);
          expect(persistedUnknown(run)).toBe(false);
          expect(JSON.stringify(stack.outputs())).not.toContain(UNKNOWN);
          if (kind === 'update') expect(JSON.stringify(run.result.outputs)).not.toContain(UNKNOWN);
        },
      ),
      { numRuns: 8 },
    );
  }, 600_000);
});
