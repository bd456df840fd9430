import { when } from '../format.js';
import type { LeaseView } from '../types.js';

const RESULT_TEXT: Record<string, string> = {
  succeeded: 'Succeeded',
  failed: 'Failed',
  cancelled: 'Cancelled',
  'in-progress': 'Running',
  'not-started': 'Not started',
};

/** A result as text and colour; the text alone carries the meaning (colour is never the only cue). */
export function Result({ status }: { status: string }) {
  return <span class={`badge result-${status}`}>{RESULT_TEXT[status] ?? status}</span>;
}

/**
 * How an update ended: its result, and beyond it who cancelled it, or that it was abandoned (its client stopped
 * without ending it, and the service recorded it as failed once its lease expired).
 */
export function Outcome({ status, cancelledBy, endReason }: { status: string; cancelledBy?: string; endReason?: string }) {
  if (cancelledBy) {
    return (
      <>
        <Result status="cancelled" /> by {cancelledBy}
      </>
    );
  }
  if (endReason === 'lease-expired') {
    return (
      <span class="badge result-failed" title="Its client stopped without ending it (crashed or killed); the service recorded it as failed once its lease expired.">
        Abandoned (lease expired)
      </span>
    );
  }
  return <Result status={status} />;
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
