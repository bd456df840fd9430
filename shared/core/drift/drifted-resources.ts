import type { DriftedResource } from '../../ports/drift-store.js';

/** The parts of a step event's metadata (Pulumi's `StepEventMetadata`) that say what a refresh found. */
interface StepMetadata {
  op?: unknown;
  urn?: unknown;
  type?: unknown;
  diffs?: unknown;
  old?: { outputs?: Record<string, unknown> } | null;
  new?: { outputs?: Record<string, unknown> } | null;
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined;
}

/** The top-level output names whose values differ between the state and what the provider read back. */
function changedOutputs(metadata: StepMetadata): string[] {
  const before = metadata.old?.outputs ?? {};
  const after = metadata.new?.outputs ?? {};
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => JSON.stringify(before[name]) !== JSON.stringify(after[name])).sort();
}

/**
 * What a preview of a refresh found, from its engine events: each finished step (`resOutputsEvent`) that reads a
 * resource back as changed (`update`, with `diffs` naming the properties) or gone (`delete`). Pulumi's own engine
 * reports a refresh step as `refresh` with its old and new state; such a step drifted when the outputs differ
 * (named by `diffs` when given, else by comparing them) or when nothing was read back. Providers and the stack
 * itself are never drift.
 */
export function driftedResources(events: readonly unknown[]): DriftedResource[] {
  const found = new Map<string, DriftedResource>();
  for (const event of events) {
    const metadata = (event as { resOutputsEvent?: { metadata?: StepMetadata } } | null)?.resOutputsEvent?.metadata;
    if (!metadata || typeof metadata.urn !== 'string' || typeof metadata.type !== 'string') continue;
    if (metadata.type.startsWith('pulumi:providers:') || metadata.type === 'pulumi:pulumi:Stack') continue;
    const resource = { urn: metadata.urn, type: metadata.type };
    if (metadata.op === 'delete' || (metadata.op === 'refresh' && metadata.new === null)) {
      found.set(metadata.urn, { ...resource, change: 'delete', properties: [] });
    } else if (metadata.op === 'update' || metadata.op === 'refresh') {
      const properties = stringList(metadata.diffs) ?? changedOutputs(metadata);
      if (metadata.op === 'update' || properties.length > 0) found.set(metadata.urn, { ...resource, change: 'update', properties: [...properties].sort() });
    }
  }
  return [...found.values()].sort((a, b) => a.urn.localeCompare(b.urn));
}
