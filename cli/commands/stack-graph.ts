/**
 * `stack graph <file>`: the stack's last state as a DOT digraph, in the shape Pulumi's `stack graph` writes
 * (pkg/cmd/pulumi/stack/stack_graph.go over pkg/graph/dotconv): one `ResourceN` node per URN, numbered as the walk
 * meets them; an edge from each dependency to its dependent, labelled with the properties that carry it; an edge
 * from each child to its parent.
 */
import { promises as fs } from 'node:fs';
import { requireExisting } from './stack.js';
import type { CommandHandler } from './types.js';

interface GraphOptions {
  ignoreParentEdges: boolean;
  ignoreDependencyEdges: boolean;
  dependencyEdgeColor: string;
  parentEdgeColor: string;
  shortNodeName: boolean;
  dotFragment?: string;
}

/** What the graph reads of a resource in the state. */
export interface GraphResource {
  urn: string;
  parent?: string;
  dependencies?: string[];
  propertyDependencies?: Record<string, string[]>;
}

interface Vertex {
  resource: GraphResource;
  outs: Edge[];
}

interface Edge {
  to: Vertex;
  color: string;
  label: string;
}

/** A URN's name: everything after its third `::` (names may hold `::` themselves). */
function urnName(urn: string): string {
  return urn.split('::').slice(3).join('::');
}

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The vertices, keyed by URN (a later resource of the same URN takes the key), with their outgoing edges. */
function buildGraph(resources: GraphResource[], options: GraphOptions): Map<string, Vertex> {
  const vertices = new Map<string, Vertex>();
  for (const resource of resources) vertices.set(resource.urn, { resource, outs: [] });
  for (const { urn } of resources) {
    const vertex = vertices.get(urn)!;
    const { resource } = vertex;
    if (!options.ignoreDependencyEdges) {
      const blame = new Map<string, string[]>();
      for (const property of Object.keys(resource.propertyDependencies ?? {}).sort(byCodeUnit)) {
        for (const dep of resource.propertyDependencies![property]!) blame.set(dep, [...(blame.get(dep) ?? []), property]);
      }
      for (const dep of resource.dependencies ?? []) {
        // A dependency the state does not hold has no node to draw an edge from.
        vertices.get(dep)?.outs.push({ to: vertex, color: options.dependencyEdgeColor, label: (blame.get(dep) ?? []).join(', ') });
      }
    }
    const parent = resource.parent ? vertices.get(resource.parent) : undefined;
    if (!options.ignoreParentEdges && parent) vertex.outs.push({ to: parent, color: options.parentEdgeColor, label: '' });
  }
  return vertices;
}

/** The DOT text: every vertex from the URN-sorted roots, breadth first, each followed by its edges. */
export function dependencyGraphDot(resources: GraphResource[], options: GraphOptions): string {
  const vertices = buildGraph(resources, options);
  const ids = new Map<Vertex, string>();
  const id = (v: Vertex) => {
    if (!ids.has(v)) ids.set(v, `Resource${ids.size}`);
    return ids.get(v)!;
  };
  const frontier = [...vertices.keys()].sort(byCodeUnit).map((urn) => vertices.get(urn)!);
  const queued = new Set(frontier);
  let text = 'strict digraph {\n';
  if (options.dotFragment) text += `${options.dotFragment}\n`;
  for (let next = 0; next < frontier.length; next++) {
    const vertex = frontier[next]!;
    const label = options.shortNodeName ? urnName(vertex.resource.urn) : vertex.resource.urn;
    text += `    ${id(vertex)}${label ? ` [label="${label}"]` : ''};\n`;
    for (const edge of vertex.outs) {
      const attrs = [...(edge.color ? [`color = "${edge.color}"`] : []), ...(edge.label ? [`label = "${edge.label}"`] : [])];
      text += `    ${id(vertex)} -> ${id(edge.to)}${attrs.length ? ` [${attrs.join(', ')}]` : ''};\n`;
      if (!queued.has(edge.to)) {
        queued.add(edge.to);
        frontier.push(edge.to);
      }
    }
  }
  return `${text}}\n`;
}

export const stackGraph: CommandHandler = async (ctx, args, opts) => {
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  await requireExisting(ctx, backend, ref);
  const deployment = await backend.exportDeployment(ref);
  // The state's resources only, as Pulumi's snapshot holds them (pending operations are not nodes).
  const resources = (deployment.deployment as { resources?: GraphResource[] }).resources ?? [];
  const dot = dependencyGraphDot(resources, {
    ignoreParentEdges: opts.ignoreParentEdges === true,
    ignoreDependencyEdges: opts.ignoreDependencyEdges === true,
    dependencyEdgeColor: (opts.dependencyEdgeColor as string | undefined) ?? '#246C60',
    parentEdgeColor: (opts.parentEdgeColor as string | undefined) ?? '#AA6639',
    shortNodeName: opts.shortNodeName === true,
    dotFragment: opts.dotFragment as string | undefined,
  });
  await fs.writeFile(args[0]!, dot);
  // Pulumi prints this line with cobra's Printf, which writes to stderr.
  ctx.note(`Wrote stack dependency graph to \`${args[0]}\``);
};
