import { when } from '../format.js';
import type { LeaseView } from '../types.js';

const RESULT_TEXT: Record<string, string> = {
  succeeded: 'Succeeded',
  failed: 'Failed',
  cancelled: 'Cancelled',
  'in-progress': 'Running',
  'not-started': 'Not started',
  accepted: 'Accepted',
  running: 'Running',
  skipped: 'Skipped',
};

/** A result as text and colour; the text alone carries the meaning (colour is never the only cue). */
export function Result({ status }: { status: string }) {
  return <span class={`badge result-${status}`}>{RESULT_TEXT[status] ?? status}</span>;
}

/**
 * How an update ended: its result, and beyond it who cancelled it, or that it was abandoned (its client stopped
 * without ending it and its lease expired; `endReason` once the service recorded it as failed, `abandoned` before), or
 * that the service's policy check failed it (`policy-bypassed`, with `endMessage` naming the packs where known).
 */
export function Outcome({
  status,
  cancelledBy,
  endReason,
  endMessage,
  abandoned,
}: {
  status: string;
  cancelledBy?: string;
  endReason?: string;
  endMessage?: string;
  abandoned?: boolean;
}) {
  if (cancelledBy) {
    return (
      <>
        <Result status="cancelled" /> by {cancelledBy}
      </>
    );
  }
  if (endReason === 'lease-expired' || abandoned) {
    return (
      <span class="badge result-failed" title="Its client stopped without ending it (crashed or killed) and its lease expired: the service records it as failed.">
        Abandoned (lease expired)
      </span>
    );
  }
  if (endReason === 'policy-bypassed') {
    return (
      <span data-testid="policy-check-failure">
        <Result status="failed" /> by the service's policy check{endMessage ? `: ${endMessage}` : ''}
      </span>
    );
  }
  return <Result status={status} />;
}

/** What an abandoned update means, and whether the service has recorded it yet (the stack's next start does). */
export function AbandonedNote({ recorded }: { recorded: boolean }) {
  return (
    <p class="muted" data-testid="abandoned-note">
      Its <code>stackyard</code> stopped without ending it (crashed or killed) and its lease expired.{' '}
      {recorded
        ? "The service recorded it as failed; what it had saved by then became the stack's state."
        : "The stack's next update, refresh or destroy records it as failed; what it had saved by then becomes the stack's state."}
    </p>
  );
}

export function Tags({ tags }: { tags: Record<string, string> }) {
  const entries = Object.entries(tags);
  if (entries.length === 0) return <span class="muted">—</span>;
  return (
    <ul class="tags" aria-label="Tags">
      {entries.map(([name, value]) => (
        <li key={name}>
          <code>
            {name}={value}
          </code>
        </li>
      ))}
    </ul>
  );
}

export function LeaseBadge({ lease }: { lease: LeaseView }) {
  return (
    <span class="lease" data-testid="lease-holder">
      <span class="badge result-in-progress">{lease.kind ?? 'update'} running</span> held by <strong>{lease.holder}</strong>{' '}
      since {when(lease.since)}, until {when(lease.expiresAt)}
    </span>
  );
}
