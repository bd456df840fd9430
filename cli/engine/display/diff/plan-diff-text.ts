/**
 * `plan show`'s text: a plan's operations in the form `stack diff` prints, each planned resource's inputs compared
 * with its inputs in the stack's current state. A plan holds only what its goal changes (Pulumi's `inputDiff`: keys
 * added, updated with their new values, deleted), so the old side comes from the state. Secrets stay ciphertexts in
 * both and are shown as `[secret]`.
 */
import type { PropertyChange, StateDiff } from '../../../../shared/core/state-diff/types.js';
import { SECRET_SIG, SIG_KEY } from '../../resource/properties.js';
import { colorize, HEADLINE, RESET, type Colorization } from './colors.js';
import { resourceChangesText } from './version-diff-text.js';

/** One resource's planned operations (the service's `operations`). */
export interface PlannedOperations {
  urn: string;
  type: string;
  ops: readonly string[];
}

interface GoalDiff {
  adds?: Record<string, unknown>;
  updates?: Record<string, unknown>;
  deletes?: string[];
}

type PlanFile = { resourcePlans?: Record<string, { goal?: { inputDiff?: GoalDiff } }> };

/** A resource of the state as `stack export` gives it. */
export interface StateResource {
  urn: string;
  id?: string;
  inputs?: Record<string, unknown>;
}

/** Secrets, in the state or the plan, as the mask the diff printer shows. */
function masked(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(masked);
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  if (record[SIG_KEY] === SECRET_SIG) return '[secret]';
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, masked(v)]));
}

function inputChanges(diff: GoalDiff | undefined, olds: Record<string, unknown>): PropertyChange[] {
  const changes: PropertyChange[] = [];
  for (const [key, value] of Object.entries(diff?.adds ?? {})) changes.push({ path: ['inputs', key], kind: 'add', new: masked(value) });
  for (const [key, value] of Object.entries(diff?.updates ?? {})) changes.push({ path: ['inputs', key], kind: 'update', old: masked(olds[key]), new: masked(value) });
  for (const key of diff?.deletes ?? []) changes.push({ path: ['inputs', key], kind: 'delete', old: masked(olds[key]) });
  return changes;
}

const REPLACING = new Set(['replace', 'create-replacement', 'delete-replaced']);

/** The plan's operations as the changes `stack diff` lists (`same`, `read` and `refresh` change nothing). */
export function plannedChanges(operations: readonly PlannedOperations[], plan: unknown, state: readonly StateResource[]): Omit<StateDiff, 'from' | 'to'> {
  const changes: Omit<StateDiff, 'from' | 'to'> = { added: [], removed: [], replaced: [], updated: [] };
  const resourcePlans = (plan as PlanFile | undefined)?.resourcePlans ?? {};
  const byUrn = new Map(state.map((r) => [r.urn, r]));
  for (const { urn, type, ops } of operations) {
    const old = byUrn.get(urn);
    const diffs = () => inputChanges(resourcePlans[urn]?.goal?.inputDiff, old?.inputs ?? {});
    if (ops.some((op) => REPLACING.has(op))) changes.replaced.push({ urn, type, ...(old?.id ? { oldId: old.id } : {}), diffs: diffs() });
    else if (ops.includes('create') || ops.includes('import')) changes.added.push({ urn, type });
    else if (ops.includes('update')) changes.updated.push({ urn, type, diffs: diffs() });
    else if (ops.includes('delete')) changes.removed.push({ urn, type, ...(old?.id ? { id: old.id } : {}) });
  }
  return changes;
}

/** The headline and the plan's changes. */
export function planDiffText(title: string, changes: Omit<StateDiff, 'from' | 'to'>, color: Colorization): string {
  return colorize(`${HEADLINE}${title}:${RESET}\n${resourceChangesText(changes, false)}`, color);
}
