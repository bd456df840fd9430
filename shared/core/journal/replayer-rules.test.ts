/** The journal replayer's rules, one case each: order, pending operations, schema 4, aliases, immutability, refresh. */
import { describe, expect, it } from 'vitest';
import { JournalEntryKind, replayJournal } from './index.js';
import type { DeploymentV3, ResourceV3, VersionedDeployment } from '../checkpoints/types.js';
import type { JournalEntry } from './index.js';

import { clone, NOW, urn } from '../../../test/support/journal-simulation/snapshot-managers.js';

describe('journal replayer rules', () => {
  const res = (name: string, extra: Partial<ResourceV3> = {}): ResourceV3 => ({ urn: urn(name), custom: true, type: 'test:index:Res', ...extra });
  const entry = (kind: JournalEntry['kind'], sequenceID: number, operationID: number, extra: Partial<JournalEntry> = {}): JournalEntry => ({
    version: 1, kind, sequenceID, operationID, removeOld: null, removeNew: null, ...extra,
  });
  const base = (resources: ResourceV3[], extra: Partial<DeploymentV3> = {}): VersionedDeployment => ({
    version: 3,
    deployment: { manifest: { time: '', magic: '', version: '' }, resources, metadata: {}, ...extra },
  });

  it('puts new resources first in order of success, then surviving base resources', () => {
    const out = replayJournal(base([res('a'), res('b'), res('c')]), [
      entry(JournalEntryKind.Begin, 1, 1),
      entry(JournalEntryKind.Begin, 2, 2),
      entry(JournalEntryKind.Success, 3, 2, { state: res('y'), removeOld: 2 }),
      entry(JournalEntryKind.Success, 4, 1, { state: res('x') }),
    ], { now: () => NOW });
    expect(out.deployment.resources!.map((r) => r.urn)).toEqual(['y', 'x', 'a', 'b'].map(urn));
  });

  it('keeps the base pending creates and the unfinished operations, dropping finished ones', () => {
    const pendingCreate = { resource: res('p1'), type: 'creating' as const };
    const pendingUpdate = { resource: res('p2'), type: 'updating' as const };
    const out = replayJournal(base([], { pending_operations: [pendingCreate, pendingUpdate] }), [
      entry(JournalEntryKind.Begin, 1, 1, { operation: { resource: res('u1'), type: 'updating' } }),
      entry(JournalEntryKind.Begin, 2, 2, { operation: { resource: res('u2'), type: 'creating' } }),
      entry(JournalEntryKind.Failure, 3, 1),
    ], { now: () => NOW });
    expect(out.deployment.pending_operations).toEqual([{ resource: res('u2'), type: 'creating' }, pendingCreate]);
  });

  it('uses schema 4 with sorted features when a resource needs one, and carries extensions and snippets', () => {
    const out = replayJournal(base([res('a', { taint: true })], { snippets: [{ uuid: 'u' }] }), [
      entry(JournalEntryKind.Success, 1, 1, { state: res('b', { refreshBeforeUpdate: true }) }),
      entry(JournalEntryKind.ExtensionParameterize, 2, 2, { extensionRef: 'ext1', extension: { name: 'e' } }),
    ], { now: () => NOW });
    expect(out.version).toBe(4);
    expect(out.features).toEqual(['refreshBeforeUpdate', 'snippets-prototype', 'taint']);
    expect(out.deployment.extensions).toEqual({ ext1: { name: 'e' } });
  });

  it('rewrites references through aliases to current URNs, re-parents children and drops the alias lists', () => {
    const out = replayJournal(base([res('child', { dependencies: [urn('old')], parent: urn('old') })]), [
      entry(JournalEntryKind.Success, 1, 1, { state: res('new', { aliases: [urn('old')] }) }),
    ], { now: () => NOW });
    const child = 'urn:pulumi:dev::proj::test:index:Res$test:index:Res::child';
    expect(out.deployment.resources).toEqual([res('new'), { ...res('child', { dependencies: [urn('new')], parent: urn('new') }), urn: child }]);
  });

  it('does not modify the base deployment or the entries it is given', () => {
    const b = base([res('a'), res('b')]);
    const entries = [
      entry(JournalEntryKind.Success, 1, 1, { state: res('x') }),
      entry(JournalEntryKind.Success, 2, 2, { deleteOld: 0, deleteNew: 1, state: res('y') }),
      entry(JournalEntryKind.RefreshSuccess, 3, 3, { removeOld: 1, state: null }),
    ];
    const before = clone({ b, entries });
    replayJournal(b, entries, { now: () => NOW });
    expect({ b, entries }).toEqual(before);
  });

  it('after a refresh deletes a resource, prunes references to it but keeps valid ones', () => {
    const a = res('a');
    const b = res('b');
    const child = res('child', { parent: urn('b') });
    const dependent = res('dependent', {
      replaceWith: [urn('a'), urn('b')],
      dependencies: [urn('b'), urn('a')],
      propertyDependencies: { x: [urn('b')], y: [urn('a')] },
      deletedWith: urn('b'),
    });
    const out = replayJournal(base([a, b, child, res('unrelated'), dependent]), [
      entry(JournalEntryKind.RefreshSuccess, 1, 1, { removeOld: 1 }),
    ], { now: () => NOW });
    expect(out.deployment.resources).toEqual([
      a,
      res('child'),
      res('unrelated'),
      res('dependent', { replaceWith: [urn('a')], dependencies: [urn('a')], propertyDependencies: { y: [urn('a')] } }),
    ]);
    expect(out.features).toEqual(['replaceWith']);
  });

  it('keeps the base extensions when no entry touches them', () => {
    const out = replayJournal(base([], { extensions: { ref: { name: 'base-ext' } } }), [], { now: () => NOW });
    expect(out.deployment.extensions).toEqual({ ref: { name: 'base-ext' } });
  });
});
