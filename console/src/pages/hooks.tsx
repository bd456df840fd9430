import { useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { api } from '../api.js';
import { when } from '../format.js';
import { usePoll } from '../use-poll.js';
import { LoadError } from './not-found.js';

interface HookView {
  name: string;
  events: string[];
  destination: { kind: 'https'; url: string } | { kind: 'lambda'; arn: string };
  active: boolean;
  gate: boolean;
  failOpen: boolean;
  createdBy: string;
  createdAt: number;
}

interface DeliveryView {
  id: string;
  event: string;
  status: string;
  createdAt: number;
  attempts: { attempt: number; at: number; ok: boolean; responseCode?: number; error?: string }[];
}

/** `/<org>/settings/hooks`: an organization's hooks and their deliveries (the hooks API decides who may see them). */
export function HooksPage() {
  const { org } = useRoute().params as { org: string };
  const loaded = usePoll(() => api<{ hooks: HookView[] }>(`/api/orgs/${encodeURIComponent(org)}/hooks`), [org], () => undefined);
  const [open, setOpen] = useState<string | undefined>();
  if (loaded.error) return <LoadError error={loaded.error} />;
  if (!loaded.data) return <p aria-busy="true">Loading…</p>;
  return (
    <section>
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href={`/${encodeURIComponent(org)}`}>{org}</a> / hooks
      </nav>
      <h1>Hooks of {org}</h1>
      {loaded.data.hooks.length === 0 ? (
        <p class="muted">
          No hooks. Add one with <code>stackyard hook add &lt;name&gt; --org {org} --url https://…</code>.
        </p>
      ) : (
        <ul class="cards">
          {loaded.data.hooks.map((hook) => (
            <li key={hook.name}>
              <h2>{hook.name}</h2>
              <p>
                {hook.destination.kind === 'https' ? hook.destination.url : hook.destination.arn} · {hook.gate ? `gate${hook.failOpen ? ' (fail-open)' : ''}` : 'events'} ·{' '}
                {hook.events.length === 0 ? 'all events' : hook.events.join(', ')} · added by {hook.createdBy} {when(hook.createdAt)}
              </p>
              <button type="button" aria-expanded={open === hook.name} onClick={() => setOpen(open === hook.name ? undefined : hook.name)}>
                {open === hook.name ? 'Hide deliveries' : 'Show deliveries'}
              </button>
              {open === hook.name && <Deliveries org={org} hook={hook.name} />}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Deliveries({ org, hook }: { org: string; hook: string }) {
  const loaded = usePoll(
    () => api<{ deliveries: DeliveryView[] }>(`/api/orgs/${encodeURIComponent(org)}/hooks/${encodeURIComponent(hook)}/deliveries?limit=50`),
    [org, hook],
    () => 10000,
  );
  if (loaded.error) return <LoadError error={loaded.error} />;
  if (!loaded.data) return <p aria-busy="true">Loading…</p>;
  if (loaded.data.deliveries.length === 0) return <p class="muted">No deliveries yet.</p>;
  return (
    <div class="scroll">
      <table>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
            <th scope="col">Last attempt</th>
          </tr>
        </thead>
        <tbody>
          {loaded.data.deliveries.map((d) => {
            const last = d.attempts[d.attempts.length - 1];
            return (
              <tr key={d.id}>
                <td>{d.event}</td>
                <td>{d.status}</td>
                <td>{when(d.createdAt)}</td>
                <td>{last ? `#${last.attempt} ${last.ok ? 'ok' : 'failed'}${last.responseCode ? ` (${last.responseCode})` : ''}${last.error ? `: ${last.error}` : ''}` : '—'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
