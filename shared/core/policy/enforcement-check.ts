/**
 * What the service checks when an update of a stack with required policy packs completes as succeeded (docs/policy.md,
 * "What the service checks"): the update's own engine events must show each required pack version's analysis, and
 * no mandatory violation. Pulumi Cloud trusts the client here; we read what the client sent, so a client that skips
 * or ignores the organization's packs cannot end an update as succeeded. A client that forges the events still can:
 * this is a check of honest-but-wrong clients (old, modified, misconfigured), not a proof that the packs ran.
 *
 * Pure: the caller reads the events (settling.ts) and records the verdict.
 */
import type { RequiredPackRef } from '../../ports/update-store.js';

/** Why a succeeded update is not accepted as such: required packs without an analysis, and mandatory violations. */
export interface PolicyBypass {
  /** Required pack versions whose analyze summary is absent from the events. */
  missing: RequiredPackRef[];
  /** Each pack version that reported a mandatory violation, with the policies violated. */
  violated: { pack: RequiredPackRef; policies: string[] }[];
  /** What was wrong, naming every pack concerned, for history, the audit log and the client's error. */
  message: string;
}

/** The fields of Pulumi's `apitype.PolicyAnalyzeSummaryEvent` / `PolicyEvent` that the check reads. */
interface PackFields {
  policyPackName?: unknown;
  policyPackVersion?: unknown;
  policyPackVersionTag?: unknown;
}

const SUMMARY_MEMBERS = ['policyAnalyzeSummaryEvent', 'policyAnalyzeStackSummaryEvent'] as const;
/** History and the audit log keep the message short: a longer one is cut. */
const MAX_MESSAGE = 2000;

/** A pack as the event names it; Pulumi's CLI sends the version tag in both fields, a pre-tag CLI only `policyPackVersion`. */
function reportedBy(event: PackFields, pack: RequiredPackRef): boolean {
  if (event.policyPackName !== pack.name) return false;
  return event.policyPackVersionTag === pack.versionTag || event.policyPackVersion === pack.versionTag;
}

function payload(event: unknown, member: string): PackFields | undefined {
  const value = (event as Record<string, unknown> | null)?.[member];
  return value && typeof value === 'object' ? (value as PackFields) : undefined;
}

const label = (pack: RequiredPackRef) => `${pack.name}@${pack.versionTag}`;

/**
 * Judges a succeeded update's events against the packs it required: `undefined` when they show every required
 * pack's analyze (or analyze-stack) summary and no `policyEvent` at level `mandatory` (from any pack, required or
 * local: Pulumi's engine fails an update at such a violation, so a succeeded one must not carry any).
 */
export function judgeRequiredPacks(required: readonly RequiredPackRef[], events: readonly unknown[]): PolicyBypass | undefined {
  const summaries = events.flatMap((event) => SUMMARY_MEMBERS.map((member) => payload(event, member)).filter((p) => p !== undefined));
  const missing = required.filter((pack) => !summaries.some((summary) => reportedBy(summary, pack)));
  const violated = new Map<string, { pack: RequiredPackRef; policies: string[] }>();
  for (const event of events) {
    const violation = payload(event, 'policyEvent') as (PackFields & { enforcementLevel?: unknown; policyName?: unknown }) | undefined;
    if (violation?.enforcementLevel !== 'mandatory') continue;
    const pack = { name: String(violation.policyPackName ?? ''), versionTag: String(violation.policyPackVersionTag || violation.policyPackVersion || '') };
    const entry = violated.get(label(pack)) ?? { pack, policies: [] };
    const policy = String(violation.policyName ?? '');
    if (!entry.policies.includes(policy)) entry.policies.push(policy);
    violated.set(label(pack), entry);
  }
  if (missing.length === 0 && violated.size === 0) return undefined;
  const list = [...violated.values()];
  return { missing, violated: list, message: bypassMessage(missing, list) };
}

function bypassMessage(missing: readonly RequiredPackRef[], violated: PolicyBypass['violated']): string {
  const parts = [
    ...missing.map((pack) => `required policy pack ${label(pack)} did not report its analysis`),
    ...violated.map(({ pack, policies }) => `policy pack ${label(pack)} reported a mandatory violation of ${policies.join(', ')}`),
  ];
  const text = parts.join('; ');
  return text.length <= MAX_MESSAGE ? text : `${text.slice(0, MAX_MESSAGE - 1)}…`;
}
