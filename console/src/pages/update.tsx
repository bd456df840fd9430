import { useRoute } from 'preact-iso';
import { api, stackApi, stackPage } from '../api.js';
import { useFollow } from '../use-follow.js';
import { changes, duration, plain, urnName, urnType, when } from '../format.js';
import { Value } from '../value.js';
import type { UpdateInfo } from '../types.js';
import { LoadError } from './not-found.js';
import { AbandonedNote, Outcome } from './parts.js';
import { PolicyResults, type PolicyEngineEvents } from './update-policies.js';

/** The parts of Pulumi's engine events (apitype.EngineEvent) this page shows. */
interface StepMetadata {
  op: string;
  urn: string;
  type: string;
  old?: { inputs?: Record<string, unknown>; outputs?: Record<string, unknown> } | null;
  new?: { inputs?: Record<string, unknown>; outputs?: Record<string, unknown> } | null;
  diffs?: string[];
  detailedDiff?: Record<string, { kind: string }> | null;
}

interface EngineEvent extends PolicyEngineEvents {
  sequence: number;
  timestamp: number;
  stdoutEvent?: { message: string };
  diagnosticEvent?: { urn?: string; message: string; severity: string };
  preludeEvent?: { config: Record<string, string> };
  summaryEvent?: { durationSeconds: number; resourceChanges: Record<string, number> };
  resourcePreEvent?: { metadata: StepMetadata; planning?: boolean };
  resOutputsEvent?: { metadata: StepMetadata; planning?: boolean };
  resOpFailedEvent?: { metadata: StepMetadata; status: number };
  cancelEvent?: Record<string, never>;
}

function describe(event: EngineEvent): { text: string; level: 'info' | 'warning' | 'error' | 'step' } | undefined {
  if (event.stdoutEvent) return { text: plain(event.stdoutEvent.message), level: 'info' };
  if (event.diagnosticEvent) {
    const where = event.diagnosticEvent.urn ? `${urnName(event.diagnosticEvent.urn)}: ` : '';
    const severity = event.diagnosticEvent.severity;
    return { text: `${severity}: ${where}${plain(event.diagnosticEvent.message)}`, level: severity === 'error' ? 'error' : severity === 'warning' ? 'warning' : 'info' };
  }
  if (event.preludeEvent) return { text: `Started with ${Object.keys(event.preludeEvent.config ?? {}).length} configuration values`, level: 'info' };
  if (event.resourcePreEvent) {
    const m = event.resourcePreEvent.metadata;
    return { text: `${m.op} ${urnType(m.urn)} ${urnName(m.urn)}…`, level: 'step' };
  }
  if (event.resOutputsEvent) {
    const m = event.resOutputsEvent.metadata;
    return { text: `${m.op} ${urnType(m.urn)} ${urnName(m.urn)}: done`, level: 'step' };
  }
  if (event.resOpFailedEvent) {
    const m = event.resOpFailedEvent.metadata;
    return { text: `${m.op} ${urnType(m.urn)} ${urnName(m.urn)}: failed`, level: 'error' };
  }
  if (event.summaryEvent) {
    return { text: `Finished in ${event.summaryEvent.durationSeconds}s: ${changes(event.summaryEvent.resourceChanges)}`, level: 'info' };
  }
  if (event.cancelEvent) return { text: 'Cancelled', level: 'warning' };
  return undefined;
}

/** `/…/updates/<version or id>` and `/…/previews/<id>`: the update, its event log (live while it runs) and diffs. */
export function UpdatePage() {
  const { org, project, stack, ref } = useRoute().params as { org: string; project: string; stack: string; ref: string };
  const base = stackApi(org, project, stack);
  const { head: info, items: events, live, error } = useFollow<UpdateInfo, EngineEvent>(
    () => api<UpdateInfo>(`${base}/updates/${encodeURIComponent(ref)}`),
    async (update, after) => {
      const query = after !== undefined ? `?continuationToken=${encodeURIComponent(after)}` : '';
      const page = await api<{ events: EngineEvent[]; continuationToken?: string }>(
        `${base}/update/${encodeURIComponent(update.updateID)}/events${query}`,
      );
      return { items: page.events, next: page.continuationToken };
    },
    [base, ref],
  );

  if (error && !info) return <LoadError error={error} />;
  if (!info) return <p aria-busy="true">Loading…</p>;
  const status = info.status ?? info.result;
  const lines = events.map((event) => ({ sequence: event.sequence, line: describe(event) })).filter((l) => l.line);
  const diagnostics = events.filter((e) => e.diagnosticEvent && e.diagnosticEvent.severity !== 'info' && e.diagnosticEvent.severity !== 'debug');
  const steps = new Map<string, StepMetadata>();
  for (const event of events) {
    const metadata = event.resOutputsEvent?.metadata ?? event.resourcePreEvent?.metadata;
    if (metadata && metadata.op !== 'same' && metadata.op !== 'read') steps.set(metadata.urn, metadata);
  }
  return (
    <section>
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href={`/${encodeURIComponent(org)}`}>{org}</a> / <a href={stackPage(org, project, stack)}>{project}/{stack}</a> / update{' '}
        {info.version ?? info.updateID}
      </nav>
      <h1>
        {info.dryRun ? 'Preview' : `Update ${info.version ?? ''}`} ({info.kind})
      </h1>
      <dl class="facts">
        <div>
          <dt>Result</dt>
          <dd data-testid="update-result">
            <Outcome status={status} cancelledBy={info.cancelledBy} endReason={info.endReason} endMessage={info.endMessage} abandoned={info.abandoned} />
            {(info.endReason === 'lease-expired' || info.abandoned) && <AbandonedNote recorded={!info.abandoned} />}
          </dd>
        </div>
        <div>
          <dt>Started by</dt>
          <dd>{info.requestedBy}</dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>{when(info.startTime * 1000)}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{duration(info.startTime * 1000, info.endTime !== undefined ? info.endTime * 1000 : undefined)}</dd>
        </div>
        <div>
          <dt>Changes</dt>
          <dd>{changes(info.resourceChanges)}</dd>
        </div>
        {info.message && (
          <div>
            <dt>Message</dt>
            <dd>{info.message}</dd>
          </div>
        )}
      </dl>
      {diagnostics.length > 0 && (
        <>
          <h2>Diagnostics</h2>
          <ul class="diagnostics">
            {diagnostics.map((event) => (
              <li key={event.sequence} class={`level-${event.diagnosticEvent!.severity}`}>
                {describe(event)!.text}
              </li>
            ))}
          </ul>
        </>
      )}
      <PolicyResults events={events} />
      <h2>
        Event log {live && <span class="badge result-in-progress">live</span>}
      </h2>
      <ol class="log" data-testid="event-log" aria-live="polite" aria-relevant="additions">
        {lines.map(({ sequence, line }) => (
          <li key={sequence} class={`level-${line!.level}`}>
            {line!.text}
          </li>
        ))}
      </ol>
      {lines.length === 0 && <p class="muted">{live ? 'Waiting for events…' : 'This update recorded no events.'}</p>}
      {steps.size > 0 && (
        <>
          <h2>Resource changes</h2>
          {[...steps.values()].map((step) => (
            <details key={step.urn} class={`diff op-${step.op}`}>
              <summary>
                <span class="badge">{step.op}</span> {urnType(step.urn)} <strong>{urnName(step.urn)}</strong>
                {step.diffs && step.diffs.length > 0 && <span class="muted"> ({step.diffs.join(', ')})</span>}
              </summary>
              <Diff step={step} />
            </details>
          ))}
        </>
      )}
    </section>
  );
}

function Diff({ step }: { step: StepMetadata }) {
  const before = step.old?.inputs ?? {};
  const after = step.new?.inputs ?? {};
  const keys = step.diffs && step.diffs.length > 0 ? step.diffs : [...new Set([...Object.keys(before), ...Object.keys(after)])];
  if (keys.length === 0) return <p class="muted">No input changes.</p>;
  return (
    <table class="diff-table">
      <thead>
        <tr>
          <th scope="col">Input</th>
          <th scope="col">Before</th>
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        {keys.map((key) => (
          <tr key={key}>
            <th scope="row">{key}</th>
            <td>{key in before ? <Value value={before[key]} /> : <span class="muted">—</span>}</td>
            <td>{key in after ? <Value value={after[key]} /> : <span class="muted">—</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
