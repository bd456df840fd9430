/**
 * The `--diff` view of a live operation: the engine's events reach Pulumi's diff renderer (tested on Pulumi's own
 * golden files in pulumi-testdata.test.ts) in the order and shape Pulumi's engine sends them.
 */
import { describe, expect, it } from 'vitest';
import { createDisplay } from '../display.js';
import type { StepEvent } from '../events.js';
import type { ResourceState } from '../../state/deployment.js';
import { makeSecret } from '../../resource/properties.js';

const STACK = 'urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev';
const GROUP = 'urn:pulumi:dev::p::p:index:Group::g';
const CHILD = 'urn:pulumi:dev::p::p:index:Group$t:index:Thing::g-child';
const PROVIDER = 'urn:pulumi:dev::p::pulumi:providers:t::default';

function state(urn: string, extra: Partial<ResourceState> = {}): ResourceState {
  return { urn, custom: true, type: urn.split('::')[2]!.split('$').pop()!, ...extra };
}

function step(op: StepEvent['op'], urn: string, phase: StepEvent['phase'], extra: Partial<StepEvent> = {}): StepEvent {
  return { op, urn, type: urn.split('::')[2]!.split('$').pop()!, phase, preview: false, ...extra };
}

function capture(color: boolean) {
  const out = { stdout: '', stderr: '' };
  const display = createDisplay({ write: (t) => (out.stdout += t), writeErr: (t) => (out.stderr += t), diff: true, color, config: { 'p:size': { value: '2', secret: false } } });
  return { out, display };
}

describe('--diff on a live operation', () => {
  it('prints a block per step, children under their parent, the stack outputs last, diagnostics on stderr', () => {
    const { out, display } = capture(false);
    const stack = state(STACK, { custom: false });
    const oldChild = state(CHILD, { id: 'c1', parent: GROUP, inputs: { size: 1, pw: makeSecret('old-pw'), __defaults: [] }, outputs: { size: 1 }, provider: `${PROVIDER}::p1` });
    const newChild = state(CHILD, { id: 'c1', parent: GROUP, inputs: { size: 2, pw: makeSecret('new-pw'), __defaults: [] }, provider: `${PROVIDER}::p1` });

    display.events.step?.(step('same', STACK, 'start', { old: stack, new: stack }));
    display.events.step?.(step('create', PROVIDER, 'start', { new: state(PROVIDER) }));
    display.events.step?.(step('create', GROUP, 'start', { new: state(GROUP, { custom: false, parent: STACK }) }));
    display.events.step?.(step('update', CHILD, 'start', { old: oldChild, new: newChild, diffKeys: ['size', 'pw'] }));
    display.events.outputs?.({ urn: STACK, type: 'pulumi:pulumi:Stack', state: { ...stack, outputs: { url: 'http://x' } } });
    display.events.diag?.({ severity: 'warning', message: 'careful', urn: CHILD });
    display.events.step?.(step('update', CHILD, 'done', { old: oldChild, new: { ...newChild, outputs: { size: 2 } }, diffKeys: ['size', 'pw'] }));
    display.finish({ ok: true, errors: [], summary: { update: 1, create: 1, same: 1 }, outputs: {} }, false, { durationMs: 1200 });

    expect(out.stdout).toBe(
      [
        '  pulumi:pulumi:Stack: (same)',
        '    [urn=urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev]',
        '    + p:index:Group: (create)',
        '        [urn=urn:pulumi:dev::p::p:index:Group::g]',
        '        ~ t:index:Thing: (update)',
        '            [id=c1]',
        '            [urn=urn:pulumi:dev::p::p:index:Group$t:index:Thing::g-child]',
        '          ~ pw  : [secret] => [secret]',
        '          ~ size: 1 => 2',
        '    --outputs:--',
        '  + url: "http://x"',
        'Resources:',
        '    + 1 created',
        '    ~ 1 updated',
        '    2 changes. 1 unchanged',
        '',
        'Duration: 2s',
        '',
      ].join('\n'),
    );
    expect(out.stderr).toBe('warning: careful\n');
    expect(out.stdout + out.stderr).not.toMatch(/old-pw|new-pw/);
  });

  it("colors as Pulumi colors (256-color codes), a changed string's changed characters in red and green", () => {
    const { out, display } = capture(true);
    const old = state(CHILD, { id: 'c1', inputs: { name: 'db.t3.micro' } });

    display.events.step?.(step('update', CHILD, 'start', { old, new: state(CHILD, { id: 'c1', inputs: { name: 'db.t3.small' } }) }));

    expect(out.stdout).toContain('\x1b[0mdb.t3.\x1b[0m\x1b[38;5;1mmicro\x1b[0m');
    expect(out.stdout).toContain('\x1b[0mdb.t3.\x1b[0m\x1b[38;5;2msmall\x1b[0m');
  });

  it('leaves the create and delete halves of a replacement out unless --show-replacement-steps', () => {
    const { out, display } = capture(false);
    const old = state(CHILD, { id: 'c1', inputs: { size: 1 } });
    const nv = state(CHILD, { inputs: { size: 2 } });

    display.events.step?.(step('create-replacement', CHILD, 'start', { old, new: nv }));
    display.events.step?.(step('replace', CHILD, 'start', { old, new: nv }));
    display.events.step?.(step('delete-replaced', CHILD, 'start', { old }));

    expect(out.stdout).toBe('+-t:index:Thing: (replace)\n    [id=c1]\n    [urn=urn:pulumi:dev::p::p:index:Group$t:index:Thing::g-child]\n  ~ size: 1 => 2\n');
  });

  it("shows a provider's detailed diff as Pulumi does: the paths it names, old outputs against new inputs", () => {
    const { out, display } = capture(false);
    const old = state(CHILD, { id: 'c1', inputs: { size: 1, name: 'n' }, outputs: { size: 3, name: 'n', arn: 'x' } });
    const nv = state(CHILD, { id: 'c1', inputs: { size: 4, name: 'm' } });

    display.events.step?.(step('update', CHILD, 'start', { old, new: nv, diffKeys: ['size'], detailedDiff: { size: { kind: 'update', inputDiff: false } } }));

    expect(out.stdout).toBe('~ t:index:Thing: (update)\n    [id=c1]\n    [urn=urn:pulumi:dev::p::p:index:Group$t:index:Thing::g-child]\n  ~ size: 3 => 4\n');
  });
});
