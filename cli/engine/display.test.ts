import { describe, expect, it } from 'vitest';
import { createDisplay } from './display.js';
import { makeSecret } from './properties.js';

const urn = 'urn:pulumi:dev::p::t:index:Thing::a';

describe('display', () => {
  it('prints finished steps, masks secret outputs and summarises changes', () => {
    let text = '';
    const d = createDisplay({ write: (t) => (text += t), diff: true });
    d.events.step?.({ op: 'update', urn, type: 't:index:Thing', phase: 'start', preview: false });
    d.events.step?.({ op: 'update', urn, type: 't:index:Thing', phase: 'done', preview: false, diffKeys: ['size'] });
    d.events.diag?.({ severity: 'debug', message: 'hidden' });
    d.events.diag?.({ severity: 'warning', message: 'careful', urn });
    d.finish({ ok: true, errors: [], summary: { update: 1, same: 2 }, outputs: { pw: makeSecret('hunter2'), n: 1 }, resourceCount: 3 }, false);
    expect(text).toContain(' ~  t:index:Thing a updated [diff: size]');
    expect(text).toContain('a: warning: careful');
    expect(text).not.toContain('hidden');
    expect(text).toContain('pw: [secret]');
    expect(text).not.toContain('hunter2');
    expect(text).toMatch(/~ 1 updated\n\s+2 unchanged/);
  });

  it('emits one JSON document for --json previews', () => {
    let text = '';
    const d = createDisplay({ write: (t) => (text += t), json: true });
    d.events.step?.({ op: 'create', urn, type: 't:index:Thing', phase: 'done', preview: true });
    d.finish({ ok: true, errors: [], summary: { create: 1 }, outputs: {}, resourceCount: 0 }, true);
    const doc = JSON.parse(text) as { steps: { op: string; urn: string }[]; changeSummary: Record<string, number> };
    expect(doc.steps).toEqual([{ op: 'create', urn, type: 't:index:Thing' }]);
    expect(doc.changeSummary).toEqual({ create: 1 });
  });
});
