/**
 * Client side of journaling for our own engine: turns steps into Pulumi-format journal entries, so a save costs
 * what changed. The one liberty it takes over Pulumi's CLI is with unchanged "same" steps: instead of sending every
 * such state (which makes a 1-in-10,000 change cost a whole state), it holds them back and sends one only when a
 * later state refers to it, so dependencies still precede their dependents in the replayed list. A state held
 * back to the end simply stays where the base had it, unchanged.
 */
import { JournalEntryKind } from './types.js';
import type { DeploymentV3, OperationV2, ResourceV3, SecretsProvidersV1 } from '../checkpoints/index.js';
import type { JournalEntry } from './types.js';

/** A resource already in the journal's view: by index in the base deployment, or by the operation that made it. */
export type StateRef = { base: number } | { op: number };

/** Options of a successful step. */
export interface SuccessOptions {
  /** The state the step produced (absent for deletes). */
  state?: ResourceV3;
  /** The state it supersedes or deletes. */
  old?: StateRef;
  /** A state to mark `delete: true` (create-before-delete replacement). */
  deleteOld?: StateRef;
  /** A state to mark `pendingReplacement: true` (delete-before-replace). */
  pendingReplacementOld?: StateRef;
  isRefresh?: boolean;
}

interface HeldSame {
  op: number;
  baseIndex: number;
  state: ResourceV3;
}

/** Builds journal entries step by step; `take()` hands out the entries to send next, in order. */
export class JournalWriter {
  private seq = 0;
  private op = 0;
  private outbox: JournalEntry[] = [];
  private readonly held = new Map<string, HeldSame>();

  secretsManager(provider: SecretsProvidersV1): void {
    this.push(JournalEntryKind.SecretsManager, 0, { secretsProvider: provider });
  }

  /** Starts an operation; `operation` is what a crash would leave pending (none for same/refresh steps). */
  begin(operation?: OperationV2): number {
    const op = ++this.op;
    if (operation) this.flushFor(operation.resource);
    this.push(JournalEntryKind.Begin, op, operation ? { operation } : {});
    return op;
  }

  /**
   * A same step for base resource `baseIndex`. An unchanged state is held back until something refers to it;
   * a changed one (dependencies, outputs, parent… differ) is sent at once.
   */
  same(baseIndex: number, state: ResourceV3, changed: boolean): number {
    const op = ++this.op;
    if (!changed) {
      this.held.set(state.urn, { op, baseIndex, state });
      return op;
    }
    this.flushFor(state);
    this.push(JournalEntryKind.Begin, op);
    this.push(JournalEntryKind.Success, op, { state, ...ref('remove', { base: baseIndex }) });
    return op;
  }

  success(op: number, options: SuccessOptions = {}): void {
    if (options.state) this.flushFor(options.state);
    const extra: Partial<JournalEntry> = {};
    if (options.state) extra.state = options.state;
    if (options.old) Object.assign(extra, ref('remove', options.old));
    if (options.deleteOld) Object.assign(extra, ref('delete', options.deleteOld));
    if (options.pendingReplacementOld) Object.assign(extra, ref('pendingReplacement', options.pendingReplacementOld));
    if (options.isRefresh) extra.isRefresh = true;
    this.push(JournalEntryKind.Success, op, extra);
  }

  failure(op: number): void {
    this.push(JournalEntryKind.Failure, op);
  }

  /**
   * Replaces the replay's base with `snapshot` (kind `write`). Entries already written keep their base indices, so
   * the new base must list the same resources in the same order (e.g. the base without its pending operations).
   */
  write(snapshot: DeploymentV3): void {
    this.push(JournalEntryKind.Write, 0, { newSnapshot: snapshot });
  }

  /** New outputs for a state recorded earlier in this update (or held back as an unchanged same). */
  outputs(of: StateRef, state: ResourceV3): void {
    const held = this.held.get(state.urn);
    if (held && 'op' in of && of.op === held.op) {
      this.held.delete(state.urn);
      this.flushFor(state);
      this.push(JournalEntryKind.Begin, held.op);
      this.push(JournalEntryKind.Success, held.op, { state, ...ref('remove', { base: held.baseIndex }) });
      return;
    }
    this.flushFor(state);
    this.push(JournalEntryKind.Outputs, ++this.op, { state, ...ref('remove', of) });
  }

  /**
   * Removes a state from the journal's view (a delete step). An unchanged same still held back was never sent: the
   * base state it stands for is removed instead.
   */
  remove(of: StateRef): void {
    const op = ++this.op;
    const held = 'op' in of ? [...this.held.values()].find((h) => h.op === of.op) : undefined;
    if (held) this.held.delete(held.state.urn);
    this.push(JournalEntryKind.Begin, op);
    this.push(JournalEntryKind.Success, op, ref('remove', held ? { base: held.baseIndex } : of));
  }

  /** Entries produced since the last call, in sequence order. */
  take(): JournalEntry[] {
    const out = this.outbox;
    this.outbox = [];
    return out;
  }

  /**
   * Sends every held-back state `state` refers to (transitively), before `state` itself. The root stack counts as
   * referred to by every state: it is registered first, so Pulumi's list starts with it even before a resource that
   * names no parent (a default provider re-created after an update that deleted all but the stack).
   */
  private flushFor(state: ResourceV3): void {
    const stack = [...this.held.values()].find((h) => h.state.type === ROOT_STACK_TYPE && h.state.urn !== state.urn);
    for (const target of [...(stack ? [stack.state.urn] : []), ...references(state)]) {
      const held = this.held.get(target);
      if (!held) continue;
      this.held.delete(target);
      this.flushFor(held.state);
      this.push(JournalEntryKind.Begin, held.op);
      this.push(JournalEntryKind.Success, held.op, { state: held.state, ...ref('remove', { base: held.baseIndex }) });
    }
  }

  private push(kind: JournalEntry['kind'], operationID: number, extra: Partial<JournalEntry> = {}): void {
    this.outbox.push({ version: 1, kind, sequenceID: ++this.seq, operationID, removeOld: null, removeNew: null, ...extra });
  }
}

function ref(field: 'remove' | 'delete' | 'pendingReplacement', r: StateRef): Partial<JournalEntry> {
  return 'base' in r ? { [`${field}Old`]: r.base } : { [`${field}New`]: r.op };
}

/** URNs a state refers to and that must precede it. */
const ROOT_STACK_TYPE = 'pulumi:pulumi:Stack';

function references(state: ResourceV3): string[] {
  const out: string[] = [...(state.dependencies ?? [])];
  if (state.parent) out.push(state.parent);
  if (state.provider) {
    const cut = state.provider.lastIndexOf('::');
    if (cut > 0) out.push(state.provider.slice(0, cut));
  }
  for (const deps of Object.values(state.propertyDependencies ?? {})) out.push(...(deps ?? []));
  if (state.deletedWith) out.push(state.deletedWith);
  out.push(...(state.replaceWith ?? []));
  return out;
}
