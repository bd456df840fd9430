/** The preview digest lists the steps Pulumi's `ShowPreviewDigest` lists (its `shouldShow` for JSON). */
import { describe, expect, it } from 'vitest';
import { createDisplay } from '../display.js';
import type { StepEvent } from '../events.js';
import type { ResourceState } from '../../state/deployment.js';

const A = 'urn:pulumi:dev::p::t:index:Thing::a';
const B = 'urn:pulumi:dev::p::t:index:Thing::b';
const C = 'urn:pulumi:dev::p::t:index:Thing::c';

function state(urn: string, extra: Partial<ResourceState> = {}): ResourceState {
  return { urn, custom: true, type: 't:index:Thing', ...extra };
}

function start(op: StepEvent['op'], urn: string, extra: Partial<StepEvent> = {}): StepEvent {
  return { op, urn, type: 't:index:Thing', phase: 'start', preview: true, ...extra };
}

describe('preview digest steps', () => {
  it('lists reads, and an unchanged resource whose protect changed, but not other sames or replacement halves', () => {
    let text = '';
    const d = createDisplay({ write: (t) => (text += t), json: 'digest' });

    d.events.step?.(start('read', A, { new: state(A, { id: 'a1', outputs: { x: '<&>' } }) }));
    d.events.step?.(start('same', B, { old: state(B), new: state(B, { protect: true }) }));
    d.events.step?.(start('same', C, { old: state(C), new: state(C) }));
    d.events.step?.(start('create-replacement', C, { old: state(C), new: state(C) }));
    d.finish({ ok: true, errors: [], summary: { read: 1, same: 2 }, outputs: {} }, true, {});

    const digest = JSON.parse(text) as { steps: { op: string; urn: string; newState: Record<string, unknown> }[] };
    expect(digest.steps.map((s) => `${s.op} ${s.urn}`)).toEqual([`read ${A}`, `same ${B}`]);
    // a step's new state has no outputs until it runs
    expect(digest.steps[0]!.newState).toEqual({ urn: A, custom: true, id: 'a1', type: 't:index:Thing' });
  });

  it('escapes <, > and & as Go does', () => {
    let text = '';
    const d = createDisplay({ write: (t) => (text += t), json: 'digest', config: { 'p:html': { value: '<b>&</b>', secret: false } } });

    d.finish({ ok: true, errors: [], summary: {}, outputs: {} }, true, {});

    expect(text).toBe('{\n    "config": {\n        "p:html": "\\u003cb\\u003e\\u0026\\u003c/b\\u003e"\n    }\n}\n');
  });
});
