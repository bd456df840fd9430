import { useRoute } from 'preact-iso';
import { api, stackPage } from '../api.js';
import { when } from '../format.js';
import { usePoll } from '../use-poll.js';
import { LoadError } from './not-found.js';

/** Pulumi's `ListPolicyPacksResponse`. */
interface PackList {
  policyPacks: { name: string; displayName: string; versionTags: string[] }[];
}

/** Pulumi's `PolicyGroupSummary` and `GetPolicyGroupResponse`. */
interface GroupSummary {
  name: string;
}
interface Group {
  name: string;
  isOrgDefault: boolean;
  mode: string;
  stacks: { name: string; routingProject: string }[];
  appliedPolicyPacks: { name: string; displayName: string; versionTag: string; config?: Record<string, unknown> }[];
}

/** Pulumi Cloud's `PolicyViolationV2`. */
interface Violation {
  id: string;
  projectName: string;
  stackName: string;
  stackVersion: number;
  policyPack: string;
  policyPackTag: string;
  policyName: string;
  level: string;
  observedAt: string;
}

interface OrgPolicies {
  packs: PackList['policyPacks'];
  groups: Group[];
  violations: Violation[];
}

async function loadPolicies(org: string): Promise<OrgPolicies> {
  const base = `/api/orgs/${encodeURIComponent(org)}`;
  const [packs, summaries, violations] = await Promise.all([
    api<PackList>(`${base}/policypacks`),
    api<{ policyGroups: GroupSummary[] }>(`${base}/policygroups`),
    api<{ policyViolations: Violation[] }>(`${base}/policyresults/violationsv2`),
  ]);
  const groups = await Promise.all(summaries.policyGroups.map((g) => api<Group>(`${base}/policygroups/${encodeURIComponent(g.name)}`)));
  return { packs: packs.policyPacks, groups, violations: violations.policyViolations };
}

/** Stacks whose latest update reported advisory violations, with those violations' policies. */
function advisoryStacks(violations: readonly Violation[]) {
  const stacks = new Map<string, { project: string; stack: string; version: number; observedAt: string; count: number; policies: Set<string> }>();
  for (const v of violations) {
    if (v.level !== 'advisory') continue;
    const key = `${v.projectName}/${v.stackName}`;
    const entry = stacks.get(key) ?? { project: v.projectName, stack: v.stackName, version: v.stackVersion, observedAt: v.observedAt, count: 0, policies: new Set<string>() };
    entry.count += 1;
    entry.policies.add(`${v.policyPack}@${v.policyPackTag}: ${v.policyName}`);
    stacks.set(key, entry);
  }
  return [...stacks.values()];
}

/** `/<org>/settings/policies`: the organization's policy packs, policy groups, and the stacks violating a policy now. */
export function PoliciesPage() {
  const { org } = useRoute().params as { org: string };
  const loaded = usePoll(() => loadPolicies(org), [org], () => 15000);
  if (loaded.error) return <LoadError error={loaded.error} />;
  if (!loaded.data) return <p aria-busy="true">Loading…</p>;
  const { packs, groups, violations } = loaded.data;
  const violating = advisoryStacks(violations);
  return (
    <section>
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href={`/${encodeURIComponent(org)}`}>{org}</a> / policies
      </nav>
      <h1>Policies of {org}</h1>

      <h2>Stacks violating an advisory policy now</h2>
      {violating.length === 0 ? (
        <p class="muted">No stack's latest update reported an advisory violation.</p>
      ) : (
        <div class="scroll">
          <table data-testid="violating-stacks">
            <caption class="sr-only">Stacks whose latest update reported advisory violations</caption>
            <thead>
              <tr>
                <th scope="col">Stack</th>
                <th scope="col">Update</th>
                <th scope="col">Violations</th>
                <th scope="col">Policies</th>
              </tr>
            </thead>
            <tbody>
              {violating.map((s) => (
                <tr key={`${s.project}/${s.stack}`}>
                  <th scope="row">
                    <a href={stackPage(org, s.project, s.stack)}>
                      {s.project}/{s.stack}
                    </a>
                  </th>
                  <td>
                    <a href={`${stackPage(org, s.project, s.stack)}/updates/${s.version}`}>{s.version}</a>{' '}
                    <span class="muted">{when(Date.parse(s.observedAt))}</span>
                  </td>
                  <td>{s.count}</td>
                  <td>{[...s.policies].join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <h2>Policy packs</h2>
      {packs.length === 0 ? (
        <p class="muted">
          No packs published. Publish one from its folder with <code>stackyard policy publish {org}</code>.
        </p>
      ) : (
        <div class="scroll">
          <table data-testid="policy-packs">
            <caption class="sr-only">Policy packs of {org}</caption>
            <thead>
              <tr>
                <th scope="col">Pack</th>
                <th scope="col">Versions</th>
                <th scope="col">Enabled in</th>
              </tr>
            </thead>
            <tbody>
              {packs.map((pack) => {
                const enabling = groups.flatMap((g) => g.appliedPolicyPacks.filter((p) => p.name === pack.name).map((p) => `${g.name} (${p.versionTag})`));
                return (
                  <tr key={pack.name}>
                    <th scope="row">
                      {pack.name}
                      {pack.displayName !== pack.name && <div class="muted">{pack.displayName}</div>}
                    </th>
                    <td>{pack.versionTags.join(', ')}</td>
                    <td>{enabling.length > 0 ? enabling.join(', ') : <span class="muted">no group</span>}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}

      <h2>Policy groups</h2>
      <ul class="cards" data-testid="policy-groups">
        {groups.map((group) => (
          <li key={group.name}>
            <h3>
              {group.name} {group.isOrgDefault && <span class="badge">default: every new stack</span>} <span class="badge">{group.mode}</span>
            </h3>
            <p>
              Stacks:{' '}
              {group.stacks.length === 0 ? (
                <span class="muted">none</span>
              ) : (
                group.stacks.map((s, i) => (
                  <span key={`${s.routingProject}/${s.name}`}>
                    {i > 0 && ', '}
                    <a href={stackPage(org, s.routingProject, s.name)}>
                      {s.routingProject}/{s.name}
                    </a>
                  </span>
                ))
              )}
            </p>
            {group.appliedPolicyPacks.length === 0 ? (
              <p class="muted">No pack enabled.</p>
            ) : (
              <ul>
                {group.appliedPolicyPacks.map((p) => (
                  <li key={p.name}>
                    <strong>
                      {p.name}@{p.versionTag}
                    </strong>
                    {p.config && Object.keys(p.config).length > 0 ? (
                      <details>
                        <summary>Config</summary>
                        <pre>{JSON.stringify(p.config, null, 2)}</pre>
                      </details>
                    ) : (
                      <span class="muted"> (default config)</span>
                    )}
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
