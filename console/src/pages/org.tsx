import { useRoute } from 'preact-iso';
import { api, stackPage } from '../api.js';
import { useSession } from '../session.js';
import { changes, when } from '../format.js';
import type { StackOverview } from '../types.js';
import { usePoll } from '../use-poll.js';
import { LoadError } from './not-found.js';
import { LeaseBadge, Outcome, Tags } from './parts.js';

/** `/<org>` (every stack) and `/<org>/<project>` (that project's stacks). */
export function OrgPage() {
  const { params } = useRoute();
  const org = params.org!;
  const project = params.project;
  const session = useSession();
  const role = session.orgs.find((o) => o.name === org)?.role;
  const isAdmin = role === 'admin';
  const loaded = usePoll(
    () => api<{ stacks: StackOverview[] }>(`/api/console/orgs/${encodeURIComponent(org)}/stacks`),
    [org],
    (data) => (data?.stacks.some((s) => s.lease) ? 3000 : 15000),
  );
  if (loaded.error) return <LoadError error={loaded.error} />;
  const stacks = loaded.data?.stacks.filter((s) => project === undefined || s.project === project);
  return (
    <section>
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href={`/${encodeURIComponent(org)}`}>{org}</a>
        {project && <span> / {project}</span>}
      </nav>
      <h1>{project ? `${org} / ${project}` : org}: stacks</h1>
      <p>
        <a href={`/${encodeURIComponent(org)}/esc`}>Environments</a>
        {role !== 'viewer' && (
          <>
            {' · '}
            <a href={`/${encodeURIComponent(org)}/settings/policies`}>Policies</a>
          </>
        )}
        {isAdmin && (
          <>
            {' · '}
            <a href={`/${encodeURIComponent(org)}/settings/hooks`}>Hooks and deliveries</a>
          </>
        )}
      </p>
      {!stacks ? (
        <p aria-busy="true">Loading…</p>
      ) : stacks.length === 0 ? (
        <p>No stacks yet. Create one with <code>stackyard stack init {org}/&lt;project&gt;/&lt;stack&gt;</code>.</p>
      ) : (
        <div class="scroll">
          <table>
            <caption class="sr-only">Stacks of {org}</caption>
            <thead>
              <tr>
                <th scope="col">Stack</th>
                <th scope="col">Last update</th>
                <th scope="col">Resources</th>
                <th scope="col">Tags</th>
                <th scope="col">Running now</th>
              </tr>
            </thead>
            <tbody>
              {stacks.map((s) => (
                <tr key={`${s.project}/${s.stack}`} data-testid={`stack-row-${s.project}/${s.stack}`}>
                  <th scope="row">
                    <a href={stackPage(s.org, s.project, s.stack)}>
                      {s.project}/{s.stack}
                    </a>
                  </th>
                  <td>
                    {s.lastUpdate ? (
                      <>
                        <Outcome status={s.lastUpdate.status} cancelledBy={s.lastUpdate.cancelledBy} endReason={s.lastUpdate.endReason} />{' '}
                        {s.lastUpdate.kind} by {s.lastUpdate.requestedBy},{' '}
                        {when(s.lastUpdate.endedAt)}
                        <div class="muted">{changes(s.lastUpdate.resourceChanges)}</div>
                      </>
                    ) : (
                      'never updated'
                    )}
                  </td>
                  <td>{s.resourceCount ?? 0}</td>
                  <td>
                    <Tags tags={s.tags} />
                  </td>
                  <td>
                    {s.lease ? (
                      <LeaseBadge lease={s.lease} />
                    ) : s.abandonedUpdate ? (
                      <>
                        <Outcome status={s.abandonedUpdate.status} abandoned /> {s.abandonedUpdate.kind} by {s.abandonedUpdate.requestedBy}
                      </>
                    ) : (
                      <span class="muted">idle</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
