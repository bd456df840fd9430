/**
 * The bytes `complete` materialises for a journaled update must not change when the way they are built changes
 * (fewer reads, less copying): stacks, exports and history hashes all see them. Two journals that between them use
 * every entry kind, the reference rewrites (aliases, refresh pruning), features, pending operations and values whose
 * JSON text `JSON.parse` + `JSON.stringify` normalises (escapes, number forms, integer-like keys, whitespace) are
 * materialised through the S3 adapter on s3rver; the SHA-256 of what is stored was taken from the code before any
 * of those changes (the journals with aliases or a refresh take the plain replay; the others splice the base).
 */
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3rverCheckpointStore, type S3rverCheckpointStore } from '../../../test/support/s3rver-checkpoint-store.js';
import type { CheckpointStore } from '../../ports/checkpoint-store.js';
import { appendJournalBatch, JournalEntryKind, materializeUpdate, recordUpdateBase } from './index.js';
import type { JournalEntry } from './index.js';
import type { ResourceV3 } from '../checkpoints/types.js';

let s3rver: S3rverCheckpointStore;
let store: CheckpointStore;
const NOW = Date.UTC(2026, 10, 24, 20, 0, 0);

beforeAll(async () => {
  s3rver = await startS3rverCheckpointStore('golden');
  store = s3rver.store;
}, 60_000);

afterAll(async () => {
  await s3rver?.stop();
});

const STACK = 'urn:pulumi:dev::golden::pulumi:pulumi:Stack::golden-dev';
const PROVIDER = 'urn:pulumi:dev::golden::pulumi:providers:test::default';
const urn = (name: string) => `urn:pulumi:dev::golden::test:index:Res::${name}`;
const res = (name: string, extra: Partial<ResourceV3> = {}): ResourceV3 => ({
  urn: urn(name),
  custom: true,
  type: 'test:index:Res',
  id: `${name}-id`,
  parent: STACK,
  provider: `${PROVIDER}::prov-id`,
  ...extra,
});
const entry = (kind: JournalEntry['kind'], sequenceID: number, operationID: number, extra: Partial<JournalEntry> = {}): JournalEntry => ({
  version: 1, kind, sequenceID, operationID, removeOld: null, removeNew: null, ...extra,
});

/**
 * A stored base whose text is not what `JSON.stringify` writes: indented, Go's HTML escapes, `\/`, a `\u`-escaped
 * letter, non-canonical numbers, integer-like keys out of order, a repeated key, separators and non-ASCII text.
 */
const TRICKY_OUTPUTS =
  '{"html": "\\u003cb\\u003e \\u0026 \\/path", "A": "\\u0041", "nums": [1.50, 1e2, -0, 12345678901234567890, 0.1e-7],' +
  ' "order": {"b": 1, "10": 2, "2": 3, "b": 4}, "text": "ü \\u2028 💥 \\u0001 \\"q\\" \\\\"}';

function baseText(resources: ResourceV3[], extra: string): string {
  const list = resources.map((r, i) => (i === 1 || i === 6 ? JSON.stringify(r).replace(/}$/, `, "outputs": ${TRICKY_OUTPUTS}}`) : JSON.stringify(r)));
  return (
    '{\n  "version": 3,\n  "deployment": {\n    "manifest": {"time": "2026-11-01T10:00:00Z", "magic": "m", "version": "v3.248.0"},\n' +
    '    "secrets_providers": {"type": "service", "state": {"url": "https://stackyard.example", "owner": "acme"}},\n' +
    `    "resources": [\n      ${list.join(',\n      ')}\n    ],\n    "metadata": {"note": "base"}${extra}\n  }\n}\n`
  );
}

const baseResources = [
  { urn: STACK, custom: false, type: 'pulumi:pulumi:Stack', outputs: { region: 'eu' } },
  { urn: PROVIDER, custom: true, id: 'prov-id', type: 'pulumi:providers:test', inputs: { region: 'eu' } },
  res('a', { inputs: { n: 1 } }),
  res('b', { dependencies: [urn('a')], propertyDependencies: { x: [urn('a')] } }),
  res('c', { taint: true }),
  res('d'),
  res('e', { parent: urn('d'), deletedWith: urn('d') }),
  res('f', { dependencies: [urn('d')], replaceWith: [urn('a')] }),
];

/** An update: updates, creates, a create-before-delete replace, a delete, outputs, aliases, unfinished and failed steps. */
const updateJournal: JournalEntry[][] = [
  [
    entry(JournalEntryKind.SecretsManager, 1, 0, { secretsProvider: { type: 'service', state: { url: 'https://stackyard.example', owner: 'acme' } } }),
    entry(JournalEntryKind.Begin, 2, 1, { operation: { resource: res('a', { inputs: { n: 2 } }), type: 'updating' } }),
    entry(JournalEntryKind.Success, 3, 1, { state: res('a', { inputs: { n: 2 }, outputs: { s: '<&> ü \u2028' } }), removeOld: 2 }),
    entry(JournalEntryKind.Begin, 4, 2, { operation: { resource: res('n1'), type: 'creating' } }),
    entry(JournalEntryKind.Success, 5, 2, { state: res('n1', { refreshBeforeUpdate: true }) }),
  ],
  [
    entry(JournalEntryKind.Success, 5, 2, { state: res('n1', { refreshBeforeUpdate: true }) }),
    entry(JournalEntryKind.Begin, 6, 3, { operation: { resource: res('b', { inputs: { v: 2 } }), type: 'creating' } }),
    entry(JournalEntryKind.Success, 7, 3, { state: res('b', { inputs: { v: 2 } }), pendingReplacementOld: 3 }),
    entry(JournalEntryKind.Success, 8, 4, { deleteOld: 3 }),
    entry(JournalEntryKind.Begin, 9, 5, { operation: { resource: res('c'), type: 'deleting' } }),
    entry(JournalEntryKind.Success, 10, 5, { removeOld: 4 }),
    entry(JournalEntryKind.Outputs, 11, 0, { removeOld: 7, state: res('f', { outputs: { big: 1e21, small: 5e-7 } }) }),
    entry(JournalEntryKind.Begin, 12, 6, { operation: { resource: res('n2'), type: 'creating' } }),
    entry(JournalEntryKind.Begin, 13, 7, { operation: { resource: res('n3'), type: 'updating' } }),
    entry(JournalEntryKind.Failure, 14, 7),
  ],
  [
    entry(JournalEntryKind.ExtensionParameterize, 15, 0, { extensionRef: 'ext-b', extension: { name: 'b', value: 'e30=' } }),
    entry(JournalEntryKind.ExtensionParameterize, 16, 0, { extensionRef: 'ext-a', extension: { name: 'a' } }),
    entry(JournalEntryKind.Snippets, 17, 0, { snippets: [{ uuid: 's1' }] }),
    entry(JournalEntryKind.Success, 18, 8, { state: res('renamed', { aliases: [urn('d')], viewOf: urn('a') }), removeOld: 5 }),
    entry(JournalEntryKind.Success, 19, 9, { state: res('n4', { resourceHooks: { before: ['h'] } }), deleteNew: 2 }),
    entry(JournalEntryKind.Success, 20, 10, { state: res('n5'), pendingReplacementNew: 8, requiresByteString: true }),
    entry(JournalEntryKind.Success, 21, 11, { state: res('n6', { extensionRef: 'ext-a', snippetID: 's1' }) }),
    entry(JournalEntryKind.Success, 22, 12, { state: res('n7'), removeNew: 9 }),
    entry(JournalEntryKind.Outputs, 23, 0, { removeNew: 10, state: res('n5', { outputs: { again: true } }) }),
  ],
];

/** A refresh: a rebase, refreshed and deleted base states, the rebuilt base, then steps against the rebuilt list. */
const refreshJournal: JournalEntry[][] = [
  [
    entry(JournalEntryKind.Write, 1, 0, {
      newSnapshot: {
        manifest: { time: '', magic: '', version: '' },
        resources: [...baseResources, res('g', { dependencies: [urn('e')], propertyDependencies: { p: [urn('e'), urn('a')], q: [] } })],
        pending_operations: [{ resource: res('pc'), type: 'creating' }, { resource: res('pu'), type: 'updating' }],
        metadata: { note: 'rebased' },
        extensions: { 'ext-z': { name: 'z' } },
      },
    }),
    entry(JournalEntryKind.Begin, 2, 1, { operation: { resource: res('a'), type: 'reading' } }),
    entry(JournalEntryKind.RefreshSuccess, 3, 1, { removeOld: 2, state: res('a', { outputs: { refreshed: 'ü' } }) }),
    entry(JournalEntryKind.RefreshSuccess, 4, 2, { removeOld: 5 }),
    entry(JournalEntryKind.RefreshSuccess, 5, 3, { removeOld: 3, state: res('b', { dependencies: [urn('a'), urn('d')] }) }),
  ],
  [
    entry(JournalEntryKind.RebuiltBaseState, 6, 0),
    entry(JournalEntryKind.Success, 7, 4, { state: res('a', { inputs: { n: 3 } }), removeOld: 2 }),
    entry(JournalEntryKind.Success, 8, 5, { state: res('n8', { dependencies: [urn('a')] }), isRefresh: true }),
    entry(JournalEntryKind.Begin, 9, 6, { operation: { resource: res('n9'), type: 'importing' } }),
  ],
];

async function materialise(base: string | undefined, batches: JournalEntry[][]): Promise<{ text: Buffer; stored: Buffer; count: number }> {
  const stackId = randomUUID();
  const updateId = randomUUID();
  if (base !== undefined) await store.put({ stackId, name: 'checkpoints/base' }, Buffer.from(base));
  await recordUpdateBase(store, stackId, updateId, base === undefined ? undefined : 'checkpoints/base');
  for (const batch of batches) {
    await appendJournalBatch(store, stackId, updateId, batch, Buffer.from(JSON.stringify({ entries: batch })));
  }
  const result = await materializeUpdate(store, stackId, updateId, `updates/${updateId}/result`, () => NOW);
  const stored = Buffer.from(await store.get({ stackId, name: `updates/${updateId}/result` }));
  return { text: result!.text, stored, count: result!.resourceCount };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('materialised bytes', () => {
  it('stay what they were for an update journal over a base whose text JSON.stringify would not write', async () => {
    const out = await materialise(baseText(baseResources, ',\n    "extensions": {"ext-c": {"name": "c"}}'), updateJournal);
    expect(out.stored.equals(out.text)).toBe(true);
    expect(out.count).toBe(12);
    expect(sha256(out.text)).toBe('25ded6e480a9d65c14e52eeeff1ec12853df4a1e50854615cea0d25e6bc824ae');
  });

  it('stay what they were for an update journal without refresh or aliases, whose base resources are kept as bytes', async () => {
    const withoutRename = updateJournal.map((batch) => batch.filter((e) => e.state?.aliases === undefined));
    const out = await materialise(baseText(baseResources, ',\n    "extensions": {"ext-c": {"name": "c"}}'), withoutRename);
    expect(out.stored.equals(out.text)).toBe(true);
    expect(out.count).toBe(12);
    expect(sha256(out.text)).toBe('e478695efb4840cc7d625acbb83ec60b6b5d8a750a0e294f90f7218363033316');
  });

  it('stay what they were for a refresh journal with a rebase and a rebuilt base', async () => {
    const out = await materialise(baseText(baseResources, ''), refreshJournal);
    expect(out.stored.equals(out.text)).toBe(true);
    expect(out.count).toBe(9);
    expect(sha256(out.text)).toBe('43790654bb6d10b7ec0109b7d10b41df7bfe9c29c12b76ecf266d011ea0693ec');
  });

  it('stay what they were for a journal on a stack that had no state', async () => {
    const out = await materialise(undefined, [updateJournal[0]!.slice(0, 1), [entry(JournalEntryKind.Success, 2, 1, { state: res('only') })]]);
    expect(out.count).toBe(1);
    expect(sha256(out.text)).toBe('cc9bf5f483a0485b5573138c160e3aa0e502df27e4789c46a9c8224801290551');
  });
});
