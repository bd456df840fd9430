/**
 * Replaying onto a stored base's bytes must write exactly what parsing the base, replaying and `JSON.stringify`
 * write. Random bases are rendered as `JSON.stringify` writes them and with the text variations `JSON.parse`
 * accepts but does not give back (whitespace, other escapes, other number forms, repeated and integer-like member
 * names); random journals use every entry kind, including those the splicing path leaves to the plain one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseStoredDeployment } from '../checkpoints/stored-deployment.js';
import { orderJournal, replayJournal } from './replayer.js';
import { replayOntoStoredBase } from './stored-base.js';
import { JournalEntryKind } from './types.js';
import type { JournalEntry } from './types.js';
import type { ResourceV3 } from '../checkpoints/types.js';
import { prng } from '../../../test/support/prng.js';

const NOW = Date.UTC(2026, 10, 24, 20, 30);
const urn = (n: number) => `urn:pulumi:dev::p::test:index:Res::r${n}`;

/** Text variations `JSON.parse` accepts and `JSON.stringify` does not write, one bit each. */
const SPACE = 1;
const ESCAPED_LETTER = 2;
const ESCAPED_SLASH = 4;
const UPPER_HEX = 8;
const NUMBER = 16;
const REPEAT = 32;
const INTEGER_NAME = 64;

/**
 * JSON text for `value` that `JSON.parse` reads back as `value` (up to repeated names). Each variation in `kinds`
 * is applied where `vary` picks it, so a run exercises one variation alone or several together.
 */
function render(value: unknown, vary: (n: number) => number, kinds: number, depth = 0): string {
  const varied = (kind: number) => (kinds & kind) !== 0 && vary(3) === 0;
  const space = () => (varied(SPACE) ? [' ', '\n', '\t', '\r\n  '][vary(4)]! : '');
  const string = (text: string): string => {
    let out = JSON.stringify(text);
    if (varied(ESCAPED_LETTER)) out = out.replace(/[A-Za-z0-9<&]/, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    if (varied(ESCAPED_SLASH)) out = out.replace('/', '\\/');
    if (varied(UPPER_HEX)) out = out.replace(/\\u00([0-9a-f]{2})/, (_m, hex: string) => `\\u00${hex.toUpperCase()}`);
    return out;
  };
  if (typeof value === 'string') return string(value);
  if (typeof value === 'number') {
    const text = JSON.stringify(value);
    if (!varied(NUMBER)) return text;
    if (text.includes('e')) return text.replace('e', 'E');
    return [text.includes('.') ? `${text}0` : `${text}.0`, `${text}e0`, Object.is(value, 0) ? '-0' : `${text}E+0`][vary(3)]!;
  }
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${space()}${value.map((v) => render(v, vary, kinds, depth + 1)).join(`${space()},${space()}`)}${space()}]`;
  const members = Object.entries(value).map(([k, v]) => `${string(k)}${space()}:${space()}${render(v, vary, kinds, depth + 1)}`);
  // A repeated name (JSON.parse keeps its place and the last value) and integer-like names after the others, inside
  // resources (a repeated member of the document or the deployment is left to the plain replay).
  if (depth >= 3 && varied(REPEAT) && members.length > 0) members.unshift(`${string(Object.keys(value)[0]!)}:"earlier"`);
  if (depth >= 3 && varied(INTEGER_NAME)) members.push(`"${vary(3)}":1`, `"${vary(3) + 3}":2`);
  return `{${space()}${members.join(`${space()},${space()}`)}${space()}}`;
}

const jsonValue = fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' });

/** Members the replay reads from a kept base resource, one of which a few resources have. */
const readMembers = (n: number): Record<string, unknown>[] => [
  { taint: true },
  { viewOf: urn(n + 2) },
  { replaceWith: [urn(0)] },
  { resourceHooks: { before: ['h'] } },
  { extensionRef: 'ext' },
  { snippetID: 's' },
  { refreshBeforeUpdate: true },
  // Aliases are rare (a rename); most bases have none, so the splicing path is what runs.
  { aliases: [`${urn(n)}-old`] },
];

const resource = (n: number): fc.Arbitrary<ResourceV3> =>
  fc
    .record(
      {
        inputs: jsonValue,
        outputs: jsonValue,
        dependencies: fc.constant<string[]>([urn(n + 1)]),
        read: fc.option(fc.constantFrom(...readMembers(n)), { freq: 6 }),
      },
      { requiredKeys: ['read'] },
    )
    .map(({ read, ...rest }) => ({
      urn: urn(n),
      custom: true,
      type: 'test:index:Res',
      id: `id-${n}`,
      // Values whose text has other forms: a slash, a control character written `\u00xx`, a zero.
      tags: { path: 'a/b', control: 'x\u001fy', zero: 0 },
      ...rest,
      ...(read ?? {}),
    }));

interface Base {
  resources: ResourceV3[];
  features: unknown;
  pending: boolean;
  extras: boolean;
}

const base: fc.Arbitrary<Base> = fc.integer({ min: 0, max: 12 }).chain((count) =>
  fc.record({
    resources: fc.tuple(...Array.from({ length: count }, (_, n) => resource(n))),
    features: fc.constantFrom(undefined, ['byteString'], [], 'x'),
    pending: fc.boolean(),
    extras: fc.boolean(),
  }),
);

type Step = { kind: number; op: number; pick: number; with: number };
const steps = fc.array(
  fc.record({ kind: fc.integer({ min: 0, max: 9 }), op: fc.integer({ min: 1, max: 6 }), pick: fc.nat(20), with: fc.nat(40) }),
  { maxLength: 25 },
);

/** A journal from random steps; `plain` keeps it to kinds the splicing path takes. */
function journal(list: Step[], plain: boolean): JournalEntry[] {
  const index = (n: number) => (n % 5 === 4 ? null : n % 14);
  return list.map((s, i): JournalEntry => {
    const kind = plain && [3, 5, 7].includes(s.kind) ? JournalEntryKind.Success : s.kind;
    const state: ResourceV3 = { urn: urn(100 + s.op), custom: true, type: 'test:index:Res', ...(s.with % 9 === 0 ? { taint: true } : {}) };
    if (!plain && s.with % 11 === 0) state.aliases = [urn(s.pick % 3)];
    const entry: JournalEntry = { version: 1, kind: kind as JournalEntry['kind'], sequenceID: i + 1, operationID: s.op, removeOld: null, removeNew: null };
    switch (kind) {
      case JournalEntryKind.Begin:
        return { ...entry, operation: { resource: state, type: 'updating' } };
      case JournalEntryKind.Success:
        return {
          ...entry,
          ...(s.with % 3 !== 0 ? { state } : {}),
          removeOld: s.with % 4 === 1 ? index(s.pick) : null,
          deleteOld: s.with % 5 === 2 ? index(s.pick) : null,
          pendingReplacementOld: s.with % 6 === 3 ? index(s.pick + 1) : null,
          removeNew: s.with % 7 === 4 ? s.pick % 6 : null,
          deleteNew: s.with % 8 === 5 ? s.pick % 6 : null,
          pendingReplacementNew: s.with % 10 === 6 ? s.pick % 6 : null,
          ...(!plain && s.with % 13 === 0 ? { isRefresh: true } : {}),
          ...(s.with % 17 === 0 ? { requiresByteString: true } : {}),
        };
      case JournalEntryKind.RefreshSuccess:
        return { ...entry, removeOld: index(s.pick), ...(s.with % 2 ? { state } : {}) };
      case JournalEntryKind.Outputs:
        return { ...entry, state, ...(s.with % 2 ? { removeOld: index(s.pick) } : { removeNew: s.pick % 6 }) };
      case JournalEntryKind.Write:
        return { ...entry, newSnapshot: { manifest: { time: '', magic: '', version: '' }, resources: [state] } };
      case JournalEntryKind.SecretsManager:
        return { ...entry, secretsProvider: { type: 'passphrase', state: { salt: `s${s.with}` } } };
      case JournalEntryKind.ExtensionParameterize:
        return { ...entry, extensionRef: `ext-${s.pick % 3}`, extension: { n: s.with } };
      case JournalEntryKind.Snippets:
        return { ...entry, snippets: s.with % 2 ? [{ id: s.pick }] : null };
      default:
        return entry;
    }
  });
}

function document(b: Base): Record<string, unknown> {
  return {
    version: 3,
    ...(b.features !== undefined ? { features: b.features } : {}),
    deployment: {
      manifest: { time: '2026-11-01T00:00:00Z', magic: '', version: 'v3' },
      secrets_providers: { type: 'service', state: { url: 'https://x' } },
      resources: b.resources,
      ...(b.pending ? { pending_operations: [{ resource: { urn: urn(50), custom: true, type: 't' }, type: 'creating' }, { resource: { urn: urn(51), custom: true, type: 't' }, type: 'deleting' }] } : {}),
      metadata: { m: 1 },
      ...(b.extras ? { snippets: [{ s: 1 }], extensions: { base: { e: 1 } } } : {}),
    },
  };
}

/** What materialising wrote before the splicing path: parse the base, replay, `JSON.stringify`. */
function plainReplay(bytes: Buffer, entries: JournalEntry[]): Buffer {
  return Buffer.from(JSON.stringify(replayJournal(parseStoredDeployment(bytes, 'base'), entries, { now: () => NOW })));
}

describe('replaying onto a stored base', () => {
  it('writes the bytes the plain replay writes, for any base text and journal', () => {
    let spliced = 0;
    fc.assert(
      fc.property(base, steps, fc.integer(), fc.integer({ min: 0, max: 127 }), fc.boolean(), (b, list, seed, kinds, plain) => {
        const bytes = Buffer.from(render(document(b), prng(seed), kinds));
        const entries = orderJournal(journal(list, plain));
        const out = replayOntoStoredBase(bytes, entries, { now: () => NOW });
        // However the base is written, a journal without refresh, rebase or aliases over a base without aliases splices.
        if (plain && b.resources.every((r) => r.aliases === undefined)) expect(out).toBeDefined();
        if (out === undefined) return;
        spliced += 1;
        const expected = plainReplay(bytes, entries);
        expect(out.text.toString('utf8')).toBe(expected.toString('utf8'));
        expect(out.text.equals(expected)).toBe(true);
        expect(out.resourceCount).toBe((JSON.parse(expected.toString('utf8')) as { deployment: { resources?: unknown[] } }).deployment.resources?.length ?? 0);
      }),
      { numRuns: 1500 },
    );
    expect(spliced).toBeGreaterThan(150);
  });

  it('takes the splicing path for a base written as JSON.stringify writes it and a journal without refresh or aliases', () => {
    fc.assert(
      fc.property(base, steps, (b, list) => {
        const doc = document(b);
        const resources = (doc.deployment as { resources: ResourceV3[] }).resources;
        fc.pre(resources.every((r) => r.aliases === undefined));
        const bytes = Buffer.from(JSON.stringify(doc));
        const entries = orderJournal(journal(list, true));
        expect(replayOntoStoredBase(bytes, entries, { now: () => NOW })?.text.equals(plainReplay(bytes, entries))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('writes the same bytes for resources holding objects of many members, with and without a repeated name', () => {
    const wide = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${String(i).padStart(4, '0')}`, i]));
    const text = JSON.stringify(document({ resources: [{ urn: urn(0), custom: true, type: 't', outputs: wide }, { urn: urn(1), custom: true, type: 't' }], features: undefined, pending: false, extras: false }));
    // The 4,001st member repeats the 100th: JSON.parse keeps it in the 100th place with the later value.
    const repeated = text.replace('"k4000":4000', '"k0099":-1');
    const success: JournalEntry = { version: 1, kind: JournalEntryKind.Success, sequenceID: 1, operationID: 1, state: { urn: urn(9), custom: true, type: 't' } };
    for (const bytes of [Buffer.from(text), Buffer.from(repeated)]) {
      expect(replayOntoStoredBase(bytes, [success], { now: () => NOW })!.text.equals(plainReplay(bytes, [success]))).toBe(true);
    }
  });

  it('leaves refresh, rebase and alias journals, and bases that are not valid UTF-8 or JSON, to the plain replay', () => {
    const bytes = Buffer.from(JSON.stringify(document({ resources: [{ urn: urn(0), custom: true, type: 't' }], features: undefined, pending: false, extras: false })));
    const success: JournalEntry = { version: 1, kind: JournalEntryKind.Success, sequenceID: 1, operationID: 1, state: { urn: urn(9), custom: true, type: 't' } };
    const now = () => NOW;
    expect(replayOntoStoredBase(bytes, [success], { now })).toBeDefined();
    expect(replayOntoStoredBase(bytes, [{ ...success, kind: JournalEntryKind.RefreshSuccess, removeOld: 0 }], { now })).toBeUndefined();
    expect(replayOntoStoredBase(bytes, [{ ...success, isRefresh: true }], { now })).toBeUndefined();
    expect(replayOntoStoredBase(bytes, [{ ...success, kind: JournalEntryKind.Write, newSnapshot: null }], { now })).toBeUndefined();
    expect(replayOntoStoredBase(bytes, [{ ...success, kind: JournalEntryKind.RebuiltBaseState }], { now })).toBeUndefined();
    expect(replayOntoStoredBase(bytes, [{ ...success, state: { ...success.state!, aliases: [urn(0)] } }], { now })).toBeUndefined();
    expect(replayOntoStoredBase(Buffer.concat([bytes.subarray(0, 20), Buffer.from([0xc3]), bytes.subarray(20)]), [success], { now })).toBeUndefined();
    expect(replayOntoStoredBase(bytes.subarray(0, bytes.length - 1), [success], { now })).toBeUndefined();
    expect(replayOntoStoredBase(Buffer.from(`${bytes.toString()} x`), [success], { now })).toBeUndefined();
  });
});
