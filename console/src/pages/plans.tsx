/**
 * The stack's update plans (`GET …/plans`): each with its status and approvals, and a plan's planned operations as a
 * diff (`GET …/plans/{id}`: each resource with its operation, and the inputs the plan adds, updates or deletes;
 * secrets as `[secret]`). Approving stays a deliberate command (`stackyard plan approve <id>`).
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { urnName } from '../format.js';

interface PlanDecision {
  user: string;
  at: string;
  comment?: string;
}

interface PlanView {
  id: string;
  author: string;
  created: string;
  stackVersion: number;
  status: string;
  requiredApprovals: number;
  approvals: PlanDecision[];
  rejection?: PlanDecision;
  voidReason?: string;
}

interface GoalDiff {
  adds?: Record<string, unknown>;
  updates?: Record<string, unknown>;
  deletes?: string[];
}

interface PlanDetails extends PlanView {
  plan: { resourcePlans?: Record<string, { goal?: { inputDiff?: GoalDiff } }> };
  operations: { urn: string; type: string; ops: string[] }[];
}

const SECRET_SIG = '4dabf18193072939515e22adb298388d';

/** A value as the plan holds it, its secrets (ciphertexts) masked. */
function shown(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v !== null && typeof v === 'object' && (v as Record<string, unknown>)[SECRET_SIG] !== undefined ? '[secret]' : v));
}

const MARKS: Record<string, string> = { create: '+', update: '~', replace: '+-', 'create-replacement': '+-', 'delete-replaced': '+-', delete: '-', import: '=' };

/** The operations that change something (a `same` changes nothing and is not listed). */
function changing(ops: string[]): string | undefined {
  return ops.find((op) => op === 'replace') ?? ops.find((op) => MARKS[op] !== undefined);
}

function statusText(plan: PlanView): string {
  if (plan.status === 'pending') return `pending (${plan.approvals.length} of ${plan.requiredApprovals} approvals)`;
  if (plan.status === 'rejected' && plan.rejection) return `rejected by ${plan.rejection.user}`;
  if (plan.status === 'void' && plan.voidReason) return `void: ${plan.voidReason}`;
  return plan.status;
}

function Operations({ details }: { details: PlanDetails }) {
  const rows = details.operations.map((o) => ({ ...o, op: changing(o.ops) })).filter((o) => o.op !== undefined);
  if (rows.length === 0) return <p class="muted">The plan changes no resource.</p>;
  return (
    <ul data-testid="plan-operations">
      {rows.map((o) => {
        const diff = details.plan.resourcePlans?.[o.urn]?.goal?.inputDiff;
        return (
          <li key={o.urn}>
            <code>{MARKS[o.op!]}</code> {o.type} <strong>{urnName(o.urn)}</strong> ({o.op})
            {o.op === 'update' || MARKS[o.op!] === '+-' ? (
              <ul>
                {Object.entries(diff?.adds ?? {}).map(([k, v]) => <li key={`+${k}`}><code>{k}</code>: + {shown(v)}</li>)}
                {Object.entries(diff?.updates ?? {}).map(([k, v]) => <li key={`~${k}`}><code>{k}</code>: → {shown(v)}</li>)}
                {(diff?.deletes ?? []).map((k) => <li key={`-${k}`}><code>{k}</code>: -</li>)}
              </ul>
            ) : null}
          </li>
        );
      })}
    </ul>
  );
}

/** The plans table; choosing a plan shows who approved it and its operations. */
export function Plans({ base, plans }: { base: string; plans: PlanView[] }) {
  const [details, setDetails] = useState<PlanDetails | undefined>();
  const [error, setError] = useState<string | undefined>();
  if (plans.length === 0) return <p class="muted">No update plans. <code>stackyard preview --save-plan &lt;file&gt;</code> uploads one for approval.</p>;
  const open = async (id: string) => {
    setError(undefined);
    try {
      setDetails(await api<PlanDetails>(`${base}/plans/${encodeURIComponent(id)}`));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <div data-testid="plans">
      <table>
        <thead>
          <tr><th>Plan</th><th>Status</th><th>Author</th><th>Version</th><th>Created</th></tr>
        </thead>
        <tbody>
          {plans.map((p) => (
            <tr key={p.id}>
              <td><button type="button" class="link" onClick={() => open(p.id)}>{p.id}</button></td>
              <td>{statusText(p)}</td>
              <td>{p.author}</td>
              <td>{p.stackVersion}</td>
              <td>{p.created}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {error ? <p role="alert">{error}</p> : null}
      {details ? (
        <div data-testid="plan-details" aria-live="polite">
          <h3>Plan {details.id}: {statusText(details)}</h3>
          {details.approvals.map((a) => <p key={a.user}>Approved by {a.user} at {a.at}{a.comment ? `: ${a.comment}` : ''}</p>)}
          {details.rejection ? <p>Rejected by {details.rejection.user} at {details.rejection.at}{details.rejection.comment ? `: ${details.rejection.comment}` : ''}</p> : null}
          <Operations details={details} />
        </div>
      ) : null}
    </div>
  );
}

export type { PlanView };
