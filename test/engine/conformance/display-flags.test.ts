/**
 * The display flags of `pulumi preview|up|refresh|destroy` (display.Options in pkg/backend/display): what each
 * shows or leaves out, on the plain display, the live terminal tree and the `--json` preview digest.
 */
import { describe, expect, it } from 'vitest';
import { createDisplay } from '../../../cli/engine/display/display.js';
import type { DisplayFlags } from '../../../cli/engine/display/display-types.js';
import type { StepEvent } from '../../../cli/engine/display/events.js';
import type { DeploymentResult } from '../../../cli/engine/run-deployment.js';

const A = 'urn:pulumi:dev::p::t:index:Thing::a';
const READ = 'urn:pulumi:dev::p::t:index:Thing::looked-up';
const LONG = `urn:pulumi:dev::p::t:index:Thing::${'n'.repeat(120)}`;

const STACK = 'urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev';

function step(op: StepEvent['op'], urn: string, phase: StepEvent['phase'], preview = false): StepEvent {
  return { op, urn, type: 't:index:Thing', phase, preview, new: { urn, type: 't:index:Thing', custom: true } };
}

function result(extra: Partial<DeploymentResult> = {}): DeploymentResult {
  return { ok: true, errors: [], summary: {}, outputs: {}, resourceCount: 0, cancelled: false, ...extra };
}

/** Runs a read, a same and a replacement through a display and returns what it printed. */
function render(flags: DisplayFlags & { json?: boolean; terminal?: boolean }): string {
  let text = '';
  const { json, terminal, ...display } = flags;
  const d = createDisplay({ write: (t) => (text += t), json, terminal: terminal ? { columns: 80, rows: 40 } : undefined, throttleMs: 0, ...display });
  d.events.step?.({ op: 'same', urn: STACK, type: 'pulumi:pulumi:Stack', phase: 'start', preview: flags.json === true });
  d.events.outputs?.({ urn: STACK, type: 'pulumi:pulumi:Stack', state: { urn: STACK, type: 'pulumi:pulumi:Stack', custom: false, outputs: { out: 'value' } } });
  for (const [op, urn] of [['read', READ], ['same', A], ['replace', LONG], ['create-replacement', LONG], ['delete-replaced', LONG]] as const) {
    d.events.step?.(step(op, urn, 'start', flags.json === true));
    d.events.step?.(step(op, urn, 'done', flags.json === true));
  }
  d.finish(result({ summary: { same: 1, read: 1, replace: 1 }, outputs: { out: 'value' } }), flags.json === true, { durationMs: 10 });
  return text;
}

describe('display flags', () => {
  it('--show-reads: read steps are listed only when asked (plain and terminal); the JSON digest always has them', () => {
    expect(render({})).not.toContain('looked-up');
    expect(render({ showReads: true })).toContain('t:index:Thing looked-up read');
    expect(render({ terminal: true })).not.toContain('looked-up');
    expect(render({ terminal: true, showReads: true })).toContain('looked-up');
    // pkg/backend/display/json.go filters steps with shouldShow, which never looks at ShowReads
    const readOps = (options: Parameters<typeof render>[0]) =>
      (JSON.parse(render(options)) as { steps: { op: string }[] }).steps.filter((s) => s.op === 'read');
    expect(readOps({ json: true })).toHaveLength(1);
    expect(readOps({ json: true, showReads: true })).toHaveLength(1);
  });

  it('--show-sames: unchanged resources are listed only when asked', () => {
    expect(render({})).not.toMatch(/Thing a\b/);
    expect(render({ showSames: true })).toMatch(/Thing a\b/);
    expect(render({ terminal: true, showSames: true })).toMatch(/Thing +a\b/);
    expect((JSON.parse(render({ json: true, showSames: true })) as { steps: { op: string }[] }).steps.map((s) => s.op)).toContain('same');
  });

  it('--show-replacement-steps: the create and delete halves get lines of their own (always without a terminal, as Pulumi)', () => {
    expect(render({ terminal: true })).not.toContain('created replacement');
    expect(render({})).toContain('created replacement');
    expect(render({ showReplacementSteps: true })).toContain('created replacement');
    expect(render({ showReplacementSteps: true })).toContain('deleted original');
    expect(render({ terminal: true, showReplacementSteps: true })).toContain('created replacement');
  });

  it('--suppress-outputs leaves the Outputs section out', () => {
    expect(render({})).toContain('Outputs:\n    out: "value"');
    expect(render({ suppressOutputs: true })).not.toContain('Outputs:');
  });

  it('--suppress-progress prints one line per step on a terminal instead of redrawing a tree', () => {
    expect(render({ terminal: true })).toMatch(/^ {5}Type +Name/m);
    expect(render({ terminal: true, suppressProgress: true })).not.toMatch(/Type +Name/);
    expect(render({ terminal: true, suppressProgress: true })).toContain(' +- t:index:Thing n');
  });

  it('--show-full-output: terminal lines are not cut to its width', () => {
    expect(render({ terminal: true })).toContain('…');
    expect(render({ terminal: true, showFullOutput: true })).toContain('n'.repeat(120));
  });
});
