import { useRoute } from 'preact-iso';
import { api, environmentPage } from '../api.js';
import { when } from '../format.js';
import type { EnvironmentOverview } from '../types.js';
import { usePoll } from '../use-poll.js';
import { LoadError } from './not-found.js';

/** Every page of the organization's environments (a page holds 100; organizations rarely have more). */
async function allEnvironments(org: string): Promise<EnvironmentOverview[]> {
  const environments: EnvironmentOverview[] = [];
  let token: string | undefined;
  do {
    const query = token ? `?continuationToken=${encodeURIComponent(token)}` : '';
    const page = await api<{ environments: EnvironmentOverview[]; nextToken?: string }>(`/api/console/environments/${encodeURIComponent(org)}${query}`);
    environments.push(...page.environments);
    token = page.nextToken;
  } while (token);
  return environments;
}

/** `/<org>/esc`: the organization's environments the user may read, with their latest revision and who saved it. */
export function EnvironmentsPage() {
  const { params } = useRoute();
  const org = params.org!;
  const loaded = usePoll(() => allEnvironments(org), [org], () => 15000);
  if (loaded.error) return <LoadError error={loaded.error} />;
  const environments = loaded.data;
  return (
    <section>
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href={`/${encodeURIComponent(org)}`}>{org}</a> <span>/ environments</span>
      </nav>
      <h1>{org}: environments</h1>
      {!environments ? (
        <p aria-busy="true">Loading…</p>
      ) : environments.length === 0 ? (
        <p>
          No environments you can see. Create one with <code>stackyard env init {org}/&lt;project&gt;/&lt;environment&gt;</code>.
        </p>
      ) : (
        <div class="scroll">
          <table data-testid="environments">
            <caption class="sr-only">Environments of {org}</caption>
            <thead>
              <tr>
                <th scope="col">Environment</th>
                <th scope="col">Latest revision</th>
                <th scope="col">Modified</th>
                <th scope="col">By</th>
              </tr>
            </thead>
            <tbody>
              {environments.map((e) => (
                <tr key={`${e.project}/${e.name}`} data-testid={`environment-row-${e.project}/${e.name}`}>
                  <th scope="row">
                    <a href={environmentPage(org, e.project, e.name)}>
                      {e.project}/{e.name}
                    </a>
                  </th>
                  <td>{e.revision}</td>
                  <td>{when(e.modifiedAt)}</td>
                  <td>{e.modifiedBy}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
