import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ResourceState } from '../state/deployment.js';
import { colorEnabled, createDisplay, terminalOf } from './display.js';
import { summaryLines } from './render-text.js';
import type { StepEvent } from './events.js';
import { makeSecret } from '../resource/properties.js';
import type { DeploymentResult } from '../run-deployment.js';

const STACK = 'urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev';
const GROUP = 'urn:pulumi:dev::p::p:index:Group::g';
const CHILD = 'urn:pulumi:dev::p::p:index:Group$t:index:Thing::g-child';
const A = 'urn:pulumi:dev::p::t:index:Thing::a';
const B = 'urn:pulumi:dev::p::t:index:Thing::b';
const PROVIDER = 'urn:pulumi:dev::p::pulumi:providers:t::default';

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;

function state(urn: string, extra: Partial<ResourceState> = {}): ResourceState {
  return { urn, custom: true, type: urn.split('::')[2]!.split('$').pop()!, ...extra };
}

function step(op: StepEvent['op'], urn: string, phase: StepEvent['phase'], extra: Partial<StepEvent> = {}): StepEvent {
  return { op, urn, type: urn.split('::')[2]!.split('$').pop()!, phase, preview: false, ...extra };
}

function result(extra: Partial<DeploymentResult> = {}): DeploymentResult {
  return { ok: true, errors: [], summary: {}, outputs: {}, resourceCount: 0, cancelled: false, ...extra };
}

/** A writable that claims to be a terminal, as `process.stdout` does on a TTY. */
function fakeTerminal(columns: number, rows = 40) {
  const chunks: string[] = [];
  return { isTTY: true, columns, rows, chunks, write: (t: string) => void chunks.push(t), text: () => chunks.join('') };
}

describe('plain display (not a terminal)', () => {
  it('prints a line per step event as Pulumi does without a terminal, then diagnostics, outputs, summary and duration', () => {
    let text = '';
    let now = 0;
    const d = createDisplay({ write: (t) => (text += t), now: () => now });
    d.events.step?.(step('same', STACK, 'start', { new: state(STACK, { custom: false }), old: state(STACK, { custom: false }) }));
    d.events.step?.(step('create', PROVIDER, 'start', { new: state(PROVIDER) }));
    d.events.step?.(step('create', PROVIDER, 'done', { new: state(PROVIDER) }));
    d.events.step?.(step('update', A, 'start', { diffKeys: ['size'], new: state(A) }));
    now = 1_500;
    d.events.step?.(step('update', A, 'done', { diffKeys: ['size'], new: state(A) }));
    d.events.diag?.({ severity: 'debug', message: 'hidden' });
    d.events.diag?.({ severity: 'warning', message: 'careful', urn: A });
    d.events.outputs?.({ urn: STACK, type: 'pulumi:pulumi:Stack', state: state(STACK, { custom: false, outputs: { pw: makeSecret('hunter2'), n: 1 } }) });
    d.finish(result({ summary: { create: 3, update: 1, same: 2 } }), false, { durationMs: 4_200 });
    expect(text).toBe(
      [
        '',
        '    pulumi:pulumi:Stack p-dev running ',
        ' ~  t:index:Thing a updating (0s) [diff: ~size]',
        ' ~  t:index:Thing a updated (1s) [diff: ~size]',
        ' ~  t:index:Thing a updated (1s) [diff: ~size]; warning: careful',
        '    pulumi:pulumi:Stack p-dev  ',
        'Diagnostics:',
        '  t:index:Thing (a):',
        '    warning: careful',
        '',
        'Outputs:',
        '    n : 1',
        '    pw: [secret]',
        '',
        'Resources:',
        '    + 3 created',
        '    ~ 1 updated',
        '    4 changes. 2 unchanged',
        '',
        'Duration: 5s',
        '',
        '',
      ].join('\n'),
    );
  });

  it('summarises a preview in the future tense, with Pulumi prefixes and a total when two kinds changed', () => {
    expect(summaryLines({ create: 3, update: 1, replace: 2, same: 2 }, true)).toBe('    + 3 to create\n    ~ 1 to update\n    +-2 to replace\n    6 changes. 2 unchanged\n');
    expect(summaryLines({ create: 9 }, true)).toBe('    + 9 to create\n');
    expect(summaryLines({}, true)).toBe('');
  });

  it('colors by --color and NO_COLOR', () => {
    expect(colorEnabled('auto', true, {})).toBe(true);
    expect(colorEnabled('auto', true, { NO_COLOR: '1' })).toBe(false);
    expect(colorEnabled('auto', false, {})).toBe(false);
    expect(colorEnabled('always', false, { NO_COLOR: '1' })).toBe(true);
    expect(colorEnabled('raw', false, {})).toBe(true);
    expect(colorEnabled('never', true, {})).toBe(false);
    expect(terminalOf({ isTTY: false, columns: 100 })).toBeUndefined();
    expect(terminalOf({ isTTY: true, columns: 100, rows: 30 })).toEqual({ columns: 100, rows: 30 });
  });
});

describe('live tree (a terminal)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(1_000_000);
  });
  afterEach(() => vi.useRealTimers());

  function tree(columns = 100, rows = 40, throttleMs = 100) {
    const out = fakeTerminal(columns, rows);
    const d = createDisplay({ write: out.write, terminal: terminalOf(out), color: colorEnabled('auto', out.isTTY, {}), throttleMs });
    return { out, d };
  }

  it('draws resources under their parents with status and elapsed time, redrawn in place', () => {
    const { out, d } = tree();
    d.events.step?.(step('create', STACK, 'start', { new: state(STACK, { custom: false }) }));
    d.events.step?.(step('create', STACK, 'done', { new: state(STACK, { custom: false }) }));
    d.events.step?.(step('create', PROVIDER, 'start', { new: state(PROVIDER) }));
    d.events.step?.(step('create', GROUP, 'start', { new: state(GROUP, { parent: STACK, custom: false }) }));
    d.events.step?.(step('create', GROUP, 'done', { new: state(GROUP, { parent: STACK, custom: false }) }));
    d.events.step?.(step('create', CHILD, 'start', { new: state(CHILD, { parent: GROUP }) }));
    d.events.step?.(step('create', A, 'start', { new: state(A, { parent: STACK }) }));
    vi.advanceTimersByTime(1_500);

    const frames = out.chunks;
    expect(frames.length).toBe(2); // the first draw, then the one-second tick while resources are running
    const first = frames[0]!.replace(ANSI, '').split('\n');
    expect(first[0]).toMatch(/^ {5}Type +Name +Status +Info$/);
    expect(first.slice(1, 5).map((l) => l.trimEnd())).toEqual([
      expect.stringMatching(/^ \+ {3}pulumi:pulumi:Stack +p-dev +creating \(0\.0s\)$/),
      expect.stringMatching(/^ \+ {3}├─ p:index:Group +g +created \(0\.0s\)$/),
      expect.stringMatching(/^ \+ {3}│  └─ t:index:Thing +g-child +creating \(0\.0s\)$/),
      expect.stringMatching(/^ \+ {3}└─ t:index:Thing +a +creating \(0\.0s\)$/),
    ]);
    expect(frames[0]).not.toContain('default');
    expect(frames[0]).toContain('\x1b[32m+ \x1b[0m');
    // the second frame moves the cursor back up over the first (header + 4 rows) and rewrites each line
    expect(frames[1]!.startsWith('\x1b[5A\r\x1b[2K')).toBe(true);
    expect(frames[1]).toContain('creating (1.0s)');
  });

  it('throttles redraws: a burst of events yields one frame', () => {
    const { out, d } = tree(100, 40, 200);
    d.events.step?.(step('create', A, 'start', { new: state(A) }));
    vi.advanceTimersByTime(0);
    expect(out.chunks.length).toBe(1);
    for (let i = 0; i < 50; i++) {
      const urn = `urn:pulumi:dev::p::t:index:Thing::r${i}`;
      d.events.step?.(step('create', urn, 'start', { new: state(urn) }));
      d.events.step?.(step('create', urn, 'done', { new: state(urn) }));
      vi.advanceTimersByTime(2);
    }
    expect(out.chunks.length).toBe(1);
    vi.advanceTimersByTime(200);
    expect(out.chunks.length).toBe(2);
    expect(out.chunks[1]!.replace(ANSI, '')).toContain('r49');
  });

  it('keeps every line within the terminal width and the live frame within its height', () => {
    const { out, d } = tree(40, 8);
    for (let i = 0; i < 20; i++) {
      const urn = `urn:pulumi:dev::p::t:index:AVeryLongResourceTypeName::resource-with-a-long-name-${i}`;
      d.events.step?.(step('update', urn, 'start', { new: state(urn), diffKeys: ['a', 'b'] }));
    }
    vi.advanceTimersByTime(100);
    const lines = out.chunks[0]!.replace(/\x1b\[2K/g, '').split('\n').filter(Boolean);
    expect(lines.length).toBeLessThanOrEqual(7);
    expect(lines[1]).toMatch(/… 15 more above/);
    for (const line of lines) expect(line.replace(ANSI, '').length).toBeLessThanOrEqual(40);
  });

  it('finishes with the whole tree, diagnostics grouped by resource, outputs and the summary', () => {
    const { out, d } = tree();
    d.events.step?.(step('same', STACK, 'start', { new: state(STACK, { custom: false }) }));
    d.events.step?.(step('same', STACK, 'done', { new: state(STACK, { custom: false }) }));
    d.events.step?.(step('same', B, 'done', { new: state(B, { parent: STACK }) }));
    d.events.step?.(step('update', A, 'start', { new: state(A, { parent: STACK }), diffKeys: ['size'] }));
    vi.advanceTimersByTime(100);
    vi.advanceTimersByTime(2_000);
    d.events.step?.(step('update', A, 'failed', { new: state(A, { parent: STACK }), error: 'quota exceeded\nmore detail' }));
    d.events.diag?.({ severity: 'error', message: 'quota exceeded', urn: A });
    d.events.programOutput?.('stdout', 'hello from the program\n');
    d.events.outputs?.({ urn: STACK, type: 'pulumi:pulumi:Stack', state: state(STACK, { custom: false, outputs: { pw: makeSecret('hunter2') } }) });
    const drawn = out.chunks.length;
    d.finish(result({ ok: false, errors: [`${A}: quota exceeded`], summary: { same: 1 } }), false, { durationMs: 2_500, status: 'failed' });

    const final = out.chunks.slice(drawn).join('');
    expect(final.startsWith('\x1b[3A\r\x1b[J')).toBe(true);
    const text = final.replace(ANSI, '');
    expect(text).toMatch(/pulumi:pulumi:Stack +p-dev\s*\n/);
    expect(text).toMatch(/└─ t:index:Thing +a +\*\*updating failed\*\* +quota exceeded\n/);
    expect(text).not.toMatch(/t:index:Thing +b/);
    expect(text).toContain('Diagnostics:\n  t:index:Thing (a):\n    error: quota exceeded\n');
    expect(text).toContain('  pulumi:pulumi:Stack (p-dev):\n    hello from the program\n');
    expect(text).toContain('pw: [secret]');
    expect(text).not.toContain('hunter2');
    expect(text).toContain('Resources:\n    1 unchanged\n\nDuration: 3s\n');
    expect(text).toContain('error: update failed\n');
    vi.advanceTimersByTime(5_000);
    expect(out.chunks.length).toBe(drawn + 1);
  });
});

describe('--json', () => {
  it('prints one PreviewDigest for a preview: config, steps with masked states, diagnostics, duration, changeSummary', () => {
    let text = '';
    const d = createDisplay({ write: (t) => (text += t), json: 'digest', config: { 'p:name': { value: 'n', secret: false }, 'p:pw': { value: 'hunter2', secret: true } } });
    const stack = state(STACK, { custom: false });
    d.events.step?.(step('same', STACK, 'start', { preview: true, old: stack, new: stack }));
    d.events.step?.(step('same', B, 'start', { preview: true, old: state(B), new: state(B) }));
    d.events.step?.(step('create', A, 'start', { preview: true, new: state(A, { parent: STACK, provider: `${PROVIDER}::1`, inputs: { pw: makeSecret('hunter2'), n: 1 } }) }));
    d.events.step?.(step('create', A, 'done', { preview: true, new: state(A) }));
    d.events.step?.(step('update', B, 'start', { preview: true, old: state(B, { inputs: { n: 1 } }), new: state(B, { inputs: { n: 2 } }), diffKeys: ['n'] }));
    d.events.diag?.({ severity: 'debug', message: 'noise' });
    d.events.diag?.({ severity: 'warning', message: 'careful', urn: A });
    d.events.programOutput?.('stdout', 'hi\n');
    d.finish(result({ summary: { create: 1, update: 1, same: 2 } }), true, { durationMs: 1_500 });

    expect(text).not.toContain('hunter2');
    const digest = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(digest)).toEqual(['config', 'steps', 'diagnostics', 'duration', 'changeSummary']);
    expect(digest.config).toEqual({ 'p:name': 'n', 'p:pw': '[secret]' });
    expect(digest.steps).toEqual([
      { op: 'same', urn: STACK, oldState: { urn: STACK, custom: false, type: 'pulumi:pulumi:Stack' }, newState: { urn: STACK, custom: false, type: 'pulumi:pulumi:Stack' }, detailedDiff: null },
      {
        op: 'create',
        urn: A,
        provider: `${PROVIDER}::1`,
        newState: { urn: A, custom: true, type: 't:index:Thing', inputs: { pw: '[secret]', n: 1 }, parent: STACK, provider: `${PROVIDER}::1` },
        detailedDiff: null,
      },
      {
        op: 'update',
        urn: B,
        oldState: { urn: B, custom: true, type: 't:index:Thing', inputs: { n: 1 } },
        newState: { urn: B, custom: true, type: 't:index:Thing', inputs: { n: 2 } },
        diffReasons: ['n'],
        detailedDiff: null,
      },
    ]);
    expect(digest.diagnostics).toEqual([
      { urn: A, message: 'warning: careful\n', severity: 'warning' },
      { message: 'hi\n', severity: 'info' },
    ]);
    expect(digest.duration).toBe(1_500_000_000);
    expect(digest.changeSummary).toEqual({ create: 1, update: 1, same: 2 });
    expect(text.split('\n')[1]).toMatch(/^ {4}"config"/);
  });

  it('prints engine events one per line for other operations, and nothing else', () => {
    let text = '';
    const d = createDisplay({ write: (t) => (text += t), json: 'lines' });
    d.events.step?.(step('create', A, 'done'));
    d.events.diag?.({ severity: 'error', message: 'x' });
    d.engineEvent({ sequence: 0, timestamp: 1, preludeEvent: { config: {} } });
    d.engineEvent({ sequence: 1, timestamp: 2, diagnosticEvent: { message: 'x\n', color: 'never', severity: 'error' } });
    // a default provider's events are internal: Pulumi leaves them out of --json, keeping the sequence numbers it stamped
    const internal = { op: 'create' as const, urn: PROVIDER, type: 'pulumi:providers:t', old: null, new: null, detailedDiff: null, provider: '' };
    d.engineEvent({ sequence: 2, timestamp: 2, resourcePreEvent: { metadata: internal } });
    d.engineEvent({ sequence: 3, timestamp: 2, resOutputsEvent: { metadata: internal } });
    d.engineEvent({ sequence: 4, timestamp: 3, diagnosticEvent: { message: 'y\n', color: 'never', severity: 'info' } });
    d.finish(result({ ok: false, errors: ['x'] }), false, { status: 'failed' });
    expect(text.split('\n')).toEqual([
      '{"sequence":0,"timestamp":1,"preludeEvent":{"config":{}}}',
      '{"sequence":1,"timestamp":2,"diagnosticEvent":{"message":"x\\n","color":"never","severity":"error"}}',
      '{"sequence":4,"timestamp":3,"diagnosticEvent":{"message":"y\\n","color":"never","severity":"info"}}',
      '',
    ]);
  });
});
