import { describe, expect, it } from 'vitest';
import type { ResourceState } from '../state/deployment.js';
import { createEngineEventLog, serviceEventLog, type EngineEvent } from './engine-events.js';
import { makeSecret } from '../resource/properties.js';

const urn = 'urn:pulumi:dev::p::t:index:Thing::a';
const PAYLOAD_KEYS = ['preludeEvent', 'resourcePreEvent', 'resOutputsEvent', 'resOpFailedEvent', 'diagnosticEvent', 'summaryEvent'];

function log(opts: { preview?: boolean } = {}) {
  const events: EngineEvent[] = [];
  let clock = 1_700_000_000_400;
  const l = createEngineEventLog({
    config: { 'p:region': { value: 'eu', secret: false }, 'p:token': { value: 'tok-plain', secret: true } },
    preview: opts.preview ?? false,
    now: () => (clock += 1000),
    emit: (e) => void events.push(e),
  });
  return { l, events };
}

describe('engine events', () => {
  it('numbers events from 0, stamps unix seconds, and gives each exactly one payload key', () => {
    const { l, events } = log();
    const old: ResourceState = { urn, custom: true, type: 't:index:Thing', id: 'a-1', inputs: { size: 1 }, outputs: { size: 1 }, provider: 'urn:pulumi:dev::p::pulumi:providers:t::default::x' };
    const next: ResourceState = { ...old, inputs: { size: 2 } };
    l.prelude();
    l.events.step?.({ op: 'update', urn, type: old.type, phase: 'start', preview: false, old, new: next, diffKeys: ['size'] });
    l.events.step?.({ op: 'update', urn, type: old.type, phase: 'failed', preview: false, old, new: next, error: 'boom' });
    l.events.diag?.({ severity: 'error', message: 'boom', urn });
    l.summary({ changes: { same: 2 }, durationMs: 2_600, status: 'failed' });

    expect(events.map((e) => e.sequence)).toEqual([0, 1, 2, 3, 4]);
    expect(events.map((e) => e.timestamp)).toEqual([1_700_000_001, 1_700_000_002, 1_700_000_003, 1_700_000_004, 1_700_000_005]);
    for (const e of events) expect(Object.keys(e).filter((k) => PAYLOAD_KEYS.includes(k))).toHaveLength(1);
    expect(events[0]).toMatchObject({ preludeEvent: { config: { 'p:region': 'eu', 'p:token': '[secret]' } } });
    expect(events[1]).toEqual({
      sequence: 1,
      timestamp: 1_700_000_002,
      resourcePreEvent: {
        metadata: {
          op: 'update',
          urn,
          type: 't:index:Thing',
          old: { type: 't:index:Thing', urn, custom: true, id: 'a-1', parent: '', inputs: { size: 1 }, outputs: { size: 1 }, provider: old.provider },
          // as in Pulumi's engine: a step that has not run has no new outputs yet, and it is one of the program's intent
          new: { type: 't:index:Thing', urn, custom: true, id: 'a-1', parent: '', inputs: { size: 2 }, outputs: {}, provider: old.provider },
          diffs: ['size'],
          detailedDiff: null,
          logical: true,
          provider: old.provider,
        },
      },
    });
    expect(events[2]).toMatchObject({ resOpFailedEvent: { metadata: { op: 'update', urn }, status: 0, steps: 0 } });
    expect(events[3]).toMatchObject({ diagnosticEvent: { urn, prefix: 'error: ', message: 'boom\n', color: 'never', severity: 'error' } });
    expect(events[4]).toEqual({
      sequence: 4,
      timestamp: 1_700_000_005,
      summaryEvent: { maybeCorrupt: false, durationSeconds: 3, resourceChanges: { same: 2 }, PolicyPacks: {}, isPreview: false, result: 'failed' },
    });
  });

  it('never carries a secret value: nested secrets in inputs and outputs become [secret]', () => {
    const { l, events } = log({ preview: true });
    const state: ResourceState = {
      urn,
      custom: true,
      type: 't:index:Thing',
      inputs: { pw: makeSecret('in-plain'), nested: { list: [makeSecret('deep-plain'), 'visible'] } },
      outputs: { pw: makeSecret('out-plain') },
    };
    l.prelude();
    l.events.step?.({ op: 'create', urn, type: state.type, phase: 'done', preview: true, new: state });
    l.events.outputs?.({ urn, type: state.type, state });
    l.summary({ changes: { create: 1 }, durationMs: 10, status: 'succeeded' });
    const text = JSON.stringify(events);
    for (const plain of ['in-plain', 'deep-plain', 'out-plain', 'tok-plain']) expect(text).not.toContain(plain);
    expect(events[1]).toMatchObject({ resOutputsEvent: { metadata: { new: { inputs: { pw: '[secret]', nested: { list: ['[secret]', 'visible'] } }, outputs: { pw: '[secret]' } } } } });
    expect(events[2]).toMatchObject({ resOutputsEvent: { metadata: { op: 'same', urn } } });
    expect(events.at(-1)).toMatchObject({ summaryEvent: { isPreview: true, result: 'succeeded' } });
  });

  it('always records debug diagnostics (only a display hides them), and program output as info or info#err', () => {
    const { l, events } = log();

    l.events.diag?.({ severity: 'debug', message: 'A debug message' });
    l.events.programOutput?.('stdout', 'out\n');
    l.events.programOutput?.('stderr', 'err\n');

    expect(events.map((e) => ('diagnosticEvent' in e ? e.diagnosticEvent : undefined))).toEqual([
      { message: 'A debug message\n', color: 'never', severity: 'debug' },
      { message: 'out\n', color: 'never', severity: 'info' },
      { message: 'err\n', color: 'never', severity: 'info#err' },
    ]);
  });

  it('records for the service every event but the same steps of resources other than the stack and debug diagnostics, numbered from 0', () => {
    const { l, events } = log();
    const thing: ResourceState = { urn, custom: true, type: 't:index:Thing', id: 'a-1', inputs: { size: 1 }, outputs: { size: 1 } };
    const stack: ResourceState = { urn: 'urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev', custom: false, type: 'pulumi:pulumi:Stack', outputs: { url: 'u' } };
    const changed: ResourceState = { ...thing, urn: `${urn}-b`, inputs: { size: 2 } };
    l.prelude();
    l.events.diag?.({ severity: 'debug', message: 'Registering resource: t=t:index:Thing' });
    for (const phase of ['start', 'done'] as const) {
      l.events.step?.({ op: 'same', urn: stack.urn, type: stack.type, phase, preview: false, old: stack, new: stack });
      l.events.step?.({ op: 'same', urn, type: thing.type, phase, preview: false, old: thing, new: thing });
      l.events.step?.({ op: 'update', urn: changed.urn, type: changed.type, phase, preview: false, old: thing, new: changed, diffKeys: ['size'] });
    }
    l.summary({ changes: { same: 2, update: 1 }, durationMs: 1_000, status: 'succeeded' });
    const service = serviceEventLog();

    const recorded = events.map((e) => service.record(e)).filter((e): e is EngineEvent => e !== undefined);

    expect(recorded.map((e) => e.sequence)).toEqual([0, 1, 2, 3, 4, 5]);
    const steps = recorded.flatMap((e) => ('resourcePreEvent' in e ? [e.resourcePreEvent.metadata] : 'resOutputsEvent' in e ? [e.resOutputsEvent.metadata] : []));
    expect(steps.map((m) => [m.op, m.urn])).toEqual([
      ['same', stack.urn],
      ['update', changed.urn],
      ['same', stack.urn],
      ['update', changed.urn],
    ]);
    expect(steps[2]!.new?.outputs).toEqual({ url: 'u' });
    expect(recorded.some((e) => 'diagnosticEvent' in e)).toBe(false);
    expect(recorded.at(-1)).toMatchObject({ summaryEvent: { resourceChanges: { same: 2, update: 1 } } });
  });
});

