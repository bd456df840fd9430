import { useRoute } from 'preact-iso';
import { api, stackApi, stackPage } from '../api.js';
import { urnName } from '../format.js';
import { Value } from '../value.js';
import type { Deployment, StateResource } from '../types.js';
import { usePoll } from '../use-poll.js';
import { LoadError } from './not-found.js';

interface Node {
  resource: StateResource;
  pending?: string;
  children: Node[];
}

/** Resources by parent; a resource whose parent is missing from the state is shown at the top. */
function tree(deployment: Deployment['deployment']): Node[] {
  const pending = new Map((deployment.pending_operations ?? []).map((op) => [op.resource.urn, op.type]));
  const nodes = new Map<string, Node>();
  const all = [...(deployment.resources ?? [])];
  for (const op of deployment.pending_operations ?? []) if (!all.some((r) => r.urn === op.resource.urn)) all.push(op.resource);
  for (const resource of all) nodes.set(resource.urn, { resource, pending: pending.get(resource.urn), children: [] });
  const roots: Node[] = [];
  for (const node of nodes.values()) {
    const parent = node.resource.parent ? nodes.get(node.resource.parent) : undefined;
    if (parent && parent !== node) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}

/** A provider reference is `<provider urn>::<id>`; its name is what people recognise. */
function providerName(reference: string | undefined): string | undefined {
  if (!reference) return undefined;
  const urn = reference.slice(0, reference.lastIndexOf('::'));
  return urnName(urn) || reference;
}

/** `/<org>/<project>/<stack>/resources`: the current state as a tree, inputs and outputs with secrets masked. */
export function ResourcesPage() {
  const { org, project, stack } = useRoute().params as { org: string; project: string; stack: string };
  const loaded = usePoll(() => api<Deployment>(`${stackApi(org, project, stack)}/export`), [org, project, stack], () => undefined);
  if (loaded.error) return <LoadError error={loaded.error} />;
  if (!loaded.data) return <p aria-busy="true">Loading…</p>;
  const roots = tree(loaded.data.deployment);
  const pendingCount = loaded.data.deployment.pending_operations?.length ?? 0;
  return (
    <section>
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href={`/${encodeURIComponent(org)}`}>{org}</a> / <a href={stackPage(org, project, stack)}>{project}/{stack}</a> / resources
      </nav>
      <h1>Resources</h1>
      {pendingCount > 0 && (
        <p role="status" class="warning">
          {pendingCount} pending operation(s): an update was interrupted. Run <code>stackyard refresh</code> to resolve them.
        </p>
      )}
      {roots.length === 0 ? (
        <p class="muted">This stack has no resources.</p>
      ) : (
        // Nested lists of native <details>: keyboard and screen readers work without a hand-made ARIA tree widget.
        <ul class="tree" aria-label="Resources by parent" data-testid="resource-tree">
          {roots.map((node) => (
            <TreeNode key={node.resource.urn} node={node} />
          ))}
        </ul>
      )}
    </section>
  );
}

function TreeNode({ node }: { node: Node }) {
  const r = node.resource;
  return (
    <li class={node.pending ? 'pending' : undefined}>
      <details>
        <summary>
          <strong>{urnName(r.urn)}</strong> <span class="type">{r.type}</span>
          {/* A space and a margin each: read aloud or copied, the words stay apart; on screen, the badges too. */}
          {r.protect && <> <span class="badge">protected</span></>}
          {r.external && <> <span class="badge">external</span></>}
          {node.pending && <> <span class="badge result-failed">pending {node.pending}</span></>}
        </summary>
        <dl class="facts">
          <div>
            <dt>URN</dt>
            <dd>
              <code>{r.urn}</code>
            </dd>
          </div>
          {r.id && (
            <div>
              <dt>ID</dt>
              <dd>
                <code>{r.id}</code>
              </dd>
            </div>
          )}
          {r.provider && (
            <div>
              <dt>Provider</dt>
              <dd title={r.provider}>{providerName(r.provider)}</dd>
            </div>
          )}
        </dl>
        <Properties title="Inputs" values={r.inputs} />
        <Properties title="Outputs" values={r.outputs} />
      </details>
      {node.children.length > 0 && (
        <ul aria-label={`Children of ${urnName(r.urn)}`}>
          {node.children.map((child) => (
            <TreeNode key={child.resource.urn} node={child} />
          ))}
        </ul>
      )}
    </li>
  );
}

function Properties({ title, values }: { title: string; values: Record<string, unknown> | undefined }) {
  const entries = Object.entries(values ?? {});
  if (entries.length === 0) return null;
  return (
    <>
      <h3>{title}</h3>
      <dl class="props">
        {entries.map(([key, value]) => (
          <div key={key}>
            <dt>{key}</dt>
            <dd>
              <Value value={value} />
            </dd>
          </div>
        ))}
      </dl>
    </>
  );
}
