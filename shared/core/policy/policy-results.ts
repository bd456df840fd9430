/**
 * Policy results: when an update completes, the violations its packs reported (its `policyEvent`s) are kept as the
 * stack's latest results, one small record per stack, so "which stacks violate a policy now" is one read of the
 * organization's records instead of reading every stack's last update's events. Design: docs/policy.md, "Policy
 * results".
 */
import type { RecordedPolicyViolation, StackPolicyResultsRecord } from '../../ports/policy-store.js';
import type { StackRecord } from '../../ports/stack-store.js';
import type { UpdateRecord } from '../../ports/update-store.js';
import { requireOrgAction } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal } from '../kernel/principal.js';
import { recordedEvents } from '../updates/recorded-changes.js';
import { orgStacks } from './group-records.js';

/** How many violations a stack's record keeps, and how much of each message: a record stays well under 400 KB. */
const MAX_RECORDED_VIOLATIONS = 100;
const MAX_MESSAGE_CHARS = 1000;

/** Pulumi Cloud's `PolicyViolationV2` (`GET /api/orgs/{org}/policyresults/violationsv2`). */
export interface PolicyViolationView {
  id: string;
  projectName: string;
  stackName: string;
  stackVersion: number;
  policyPack: string;
  policyPackTag: string;
  policyName: string;
  resourceURN: string;
  resourceType: string;
  resourceName: string;
  message: string;
  /** RFC 3339: when the update that reported it ended. */
  observedAt: string;
  level: string;
  kind: 'preventative';
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The violations among an update's engine events, in the order they were sent. */
export function policyViolationsOf(events: readonly unknown[]): RecordedPolicyViolation[] {
  const violations: RecordedPolicyViolation[] = [];
  for (const event of events) {
    const body = (event as { policyEvent?: Record<string, unknown> } | null)?.policyEvent;
    if (!body || typeof body !== 'object') continue;
    const policyPack = text(body.policyPackName);
    const policyName = text(body.policyName);
    if (!policyPack || !policyName) continue;
    const urn = text(body.resourceUrn);
    violations.push({
      policyPack,
      policyPackTag: text(body.policyPackVersionTag) ?? text(body.policyPackVersion) ?? '',
      policyName,
      level: text(body.enforcementLevel) ?? 'advisory',
      ...(urn ? { resourceURN: urn } : {}),
      message: (text(body.message) ?? '').trimEnd().slice(0, MAX_MESSAGE_CHARS),
    });
  }
  return violations;
}

/**
 * Records the stack's latest policy results from a completed update: an `up` (any outcome) replaces them with what
 * it reported, a succeeded `destroy` clears them (nothing is left to violate anything); previews, refreshes and
 * imports run no packs and change nothing. Idempotent: the record carries the update's version. `readEvents` lets the
 * completion share one read of the events with the required-pack check.
 */
export async function recordPolicyResults(
  deps: ServiceDeps,
  stackId: string,
  updateId: string,
  readEvents: () => Promise<unknown[]> = async () => (await recordedEvents(deps, stackId, updateId)) ?? [],
): Promise<void> {
  const update = await deps.storage.updates.get(stackId, updateId);
  if (!recordsResults(update) || update.version === undefined) return;
  const stack = await deps.storage.stacks.getById(stackId);
  const reported = update.kind === 'update' ? policyViolationsOf(await readEvents()) : [];
  const record: StackPolicyResultsRecord = {
    org: stack.org,
    stackId,
    project: stack.project,
    stack: stack.stack,
    updateId,
    version: update.version,
    observedAt: update.endedAt ?? deps.now(),
    violations: reported.slice(0, MAX_RECORDED_VIOLATIONS),
    omitted: Math.max(0, reported.length - MAX_RECORDED_VIOLATIONS),
  };
  await deps.storage.policies.recordStackResults(record);
}

function recordsResults(update: UpdateRecord): boolean {
  if (update.dryRun) return false;
  return update.kind === 'update' || (update.kind === 'destroy' && update.status === 'succeeded');
}

/** The `type` and `name` parts of a URN (`urn:pulumi:<stack>::<project>::<type>::<name>`). */
function urnParts(urn: string): { type: string; name: string } {
  const parts = urn.split('::');
  if (parts.length < 4) return { type: '', name: '' };
  const types = parts[2]!.split('$');
  return { type: types[types.length - 1]!, name: parts.slice(3).join('::') };
}

/** A record's violations as Pulumi's `PolicyViolationV2`, named by the stack as it is called now. */
function violationViews(record: StackPolicyResultsRecord, stack: Pick<StackRecord, 'project' | 'stack'>): PolicyViolationView[] {
  return record.violations.map((v, index) => {
    const { type, name } = urnParts(v.resourceURN ?? '');
    return {
      id: `${record.updateId}-${index}`,
      projectName: stack.project,
      stackName: stack.stack,
      stackVersion: record.version,
      policyPack: v.policyPack,
      policyPackTag: v.policyPackTag,
      policyName: v.policyName,
      resourceURN: v.resourceURN ?? '',
      resourceType: type,
      resourceName: name,
      message: v.message,
      observedAt: new Date(record.observedAt).toISOString(),
      level: v.level,
      kind: 'preventative',
    };
  });
}

/** The policy-results verbs of `PolicyService` (policy-service.ts). */
export function createResultVerbs(deps: ServiceDeps) {
  return {
    /**
     * Pulumi Cloud's `ListPolicyViolationsV2`: the violations of each stack's latest update, for members of the
     * organization; stacks removed since are left out. One page holds them all (no `continuationToken`).
     */
    async listViolations(principal: Principal, org: string): Promise<{ policyViolations: PolicyViolationView[] }> {
      requireOrgAction(principal, org, 'read-policies');
      const [records, stacks] = await Promise.all([deps.storage.policies.listStackResults(org), orgStacks(deps, org)]);
      const byId = new Map(stacks.map((s) => [s.id, s]));
      const current = records
        .filter((r) => byId.has(r.stackId))
        .sort((a, b) => b.observedAt - a.observedAt || (a.stackId < b.stackId ? -1 : 1));
      return { policyViolations: current.flatMap((r) => violationViews(r, byId.get(r.stackId)!)) };
    },
  };
}
