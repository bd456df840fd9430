/**
 * Pulumi's engine events (`apitype.EngineEvent`), built from the engine's own events: what the service's
 * `POST …/update/{id}/events/batch` receives and what `up|destroy|refresh --json` prints, one per line. Secret
 * values never appear: inputs, outputs and config show `[secret]` in their place.
 */
import { orderedResource, type ResourceState } from '../state/deployment.js';
import type { ChangeSummary, DetailedDiff, DiagEvent, DiffKind, EngineEvents, StepEvent, StepOp } from './events.js';
import type { StackConfig } from '../config/program-config.js';
import { isSecret, type PropertyMap, type PropertyValue } from '../resource/properties.js';
import { policyEventPayload, policyPacksSummary, type PolicyEventPayload } from './policy-engine-events.js';
import type { PolicyPackRun } from './policy-events.js';

/** `apitype.StepEventStateMetadata`. */
export interface StepEventStateMetadata {
  type: string;
  urn: string;
  custom?: boolean;
  delete?: boolean;
  id: string;
  parent: string;
  protect?: boolean;
  retainOnDelete?: boolean;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  provider: string;
  initErrors?: string[];
}

/** `apitype.StepEventMetadata`. */
export interface StepEventMetadata {
  op: StepOp;
  urn: string;
  type: string;
  old: StepEventStateMetadata | null;
  new: StepEventStateMetadata | null;
  keys?: string[];
  diffs?: string[];
  /** The provider's detailed diff (`apitype.PropertyDiff` per path), `null` when it gave none. */
  detailedDiff: Record<string, { diffKind: DiffKind; inputDiff: boolean }> | null;
  /** A step of the program's intent; the create and delete halves of a replacement are not (left out when false). */
  logical?: boolean;
  provider: string;
}

/** `apitype.DiagnosticEvent`. */
export interface DiagnosticEventPayload {
  urn?: string;
  prefix?: string;
  message: string;
  color: string;
  /** `debug`, `info`, `info#err`, `warning` or `error`. */
  severity: string;
}

/** `apitype.SummaryEvent` (note the PascalCase `PolicyPacks`), plus the outcome. */
export interface SummaryEventPayload {
  maybeCorrupt: boolean;
  durationSeconds: number;
  resourceChanges: ChangeSummary;
  PolicyPacks: Record<string, string>;
  isPreview: boolean;
  result: OperationStatus;
}

/** How an operation ended, as `complete` records it. */
export type OperationStatus = 'succeeded' | 'failed' | 'cancelled';

/** One engine event: `sequence` (from 0, per operation), `timestamp` (unix seconds) and exactly one payload. */
export type EngineEvent = { sequence: number; timestamp: number } & (
  | { preludeEvent: { config: Record<string, string> } }
  | { resourcePreEvent: { metadata: StepEventMetadata; planning?: boolean } }
  | { resOutputsEvent: { metadata: StepEventMetadata; planning?: boolean } }
  | { resOpFailedEvent: { metadata: StepEventMetadata; status: number; steps: number } }
  | { diagnosticEvent: DiagnosticEventPayload }
  | { summaryEvent: SummaryEventPayload }
  | PolicyEventPayload
);

/** Replaces every secret by the string `[secret]`, recursively. */
export function maskSecrets(v: PropertyValue): unknown {
  if (isSecret(v)) return '[secret]';
  if (Array.isArray(v)) return v.map(maskSecrets);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, maskSecrets(x)]));
  return v;
}

function maskMap(m: PropertyMap | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(m ?? {}).map(([k, v]) => [k, maskSecrets(v)]));
}

/** A state for display (`apitype.ResourceV3` shape), secrets masked. */
export function displayResource(s: ResourceState): Record<string, unknown> {
  return orderedResource({
    ...s,
    inputs: s.inputs && (maskMap(s.inputs) as PropertyMap),
    outputs: s.outputs && (maskMap(s.outputs) as PropertyMap),
  });
}

/** The stack config as the prelude shows it, secrets masked. */
export function displayConfig(config: StackConfig): Record<string, string> {
  return Object.fromEntries(Object.entries(config).map(([k, v]) => [k, v.secret ? '[secret]' : v.value]));
}

function stateMetadata(s: ResourceState | undefined): StepEventStateMetadata | null {
  if (!s) return null;
  return {
    type: s.type,
    urn: s.urn,
    ...(s.custom ? { custom: true } : {}),
    ...(s.delete ? { delete: true } : {}),
    id: s.id ?? '',
    parent: s.parent ?? '',
    ...(s.protect ? { protect: true } : {}),
    ...(s.retainOnDelete ? { retainOnDelete: true } : {}),
    inputs: maskMap(s.inputs),
    outputs: maskMap(s.outputs),
    provider: s.provider ?? '',
    ...(s.initErrors?.length ? { initErrors: s.initErrors } : {}),
  };
}

/** A detailed diff as Pulumi's events carry it (`apitype.PropertyDiff`: `diffKind`), `null` when there is none. */
export function apiDetailedDiff(d: DetailedDiff | undefined): StepEventMetadata['detailedDiff'] {
  return d ? Object.fromEntries(Object.entries(d).map(([path, x]) => [path, { diffKind: x.kind, inputDiff: x.inputDiff }])) : null;
}

/**
 * `apitype.StepEventMetadata` of a step event. As in Pulumi's engine, the new state of a step that has not run yet
 * has no outputs.
 */
export function stepMetadata(e: StepEvent): StepEventMetadata {
  const proposed = e.phase === 'start' && e.new ? { ...e.new, outputs: {} } : e.new;
  return {
    op: e.op,
    urn: e.urn,
    type: e.type,
    old: stateMetadata(e.old),
    new: stateMetadata(proposed),
    ...(e.replaceKeys?.length ? { keys: e.replaceKeys } : {}),
    ...(e.diffKeys?.length ? { diffs: e.diffKeys } : {}),
    detailedDiff: apiDetailedDiff(e.detailedDiff),
    ...(e.op === 'create-replacement' || e.op === 'delete-replaced' ? {} : { logical: true }),
    provider: e.new?.provider ?? e.old?.provider ?? '',
  };
}

const DIAG_PREFIX: Partial<Record<DiagEvent['severity'], string>> = { warning: 'warning: ', error: 'error: ' };

/** Options of an event log. */
export interface EngineEventLogOptions {
  config: StackConfig;
  preview: boolean;
  /** Receives each event as it is made, in sequence order. */
  emit: (event: EngineEvent) => void;
  now?: () => number;
}

/** Turns engine events into `EngineEvent`s; `prelude()` first, `summary()` last. */
export interface EngineEventLog {
  events: EngineEvents;
  prelude(): void;
  summary(s: { changes: ChangeSummary; durationMs: number; status: OperationStatus; policyPacks?: readonly PolicyPackRun[] }): void;
}

/** Builds an event log for one operation. */
export function createEngineEventLog(o: EngineEventLogOptions): EngineEventLog {
  const now = o.now ?? Date.now;
  let sequence = 0;
  const push = (payload: Record<string, unknown>) =>
    o.emit({ sequence: sequence++, timestamp: Math.floor(now() / 1000), ...payload } as EngineEvent);
  const diagnostic = (d: DiagnosticEventPayload) => push({ diagnosticEvent: d });
  return {
    events: {
      step: (e) => {
        const metadata = stepMetadata(e);
        const planning = o.preview ? { planning: true } : {};
        if (e.phase === 'start') push({ resourcePreEvent: { metadata, ...planning } });
        else if (e.phase === 'done') push({ resOutputsEvent: { metadata, ...planning } });
        else push({ resOpFailedEvent: { metadata, status: 0, steps: 0 } });
      },
      outputs: (e) => {
        const state = stateMetadata(e.state);
        const metadata: StepEventMetadata = { op: 'same', urn: e.urn, type: e.type, old: state, new: state, detailedDiff: null, logical: true, provider: e.state.provider ?? '' };
        push({ resOutputsEvent: { metadata, ...(o.preview ? { planning: true } : {}) } });
      },
      // Debug diagnostics are always recorded, as Pulumi's engine records them: only a display leaves them out.
      diag: (d) => {
        const message = d.message.endsWith('\n') ? d.message : `${d.message}\n`;
        const prefix = DIAG_PREFIX[d.severity];
        diagnostic({ ...(d.urn ? { urn: d.urn } : {}), ...(prefix ? { prefix } : {}), message, color: 'never', severity: d.severity });
      },
      programOutput: (stream, text) => diagnostic({ message: text, color: 'never', severity: stream === 'stderr' ? 'info#err' : 'info' }),
      policy: (e) => push(policyEventPayload(e, maskSecrets)),
    },
    prelude: () => push({ preludeEvent: { config: displayConfig(o.config) } }),
    summary: (s) =>
      push({
        summaryEvent: {
          maybeCorrupt: false,
          durationSeconds: Math.round(s.durationMs / 1000),
          resourceChanges: s.changes,
          PolicyPacks: policyPacksSummary(s.policyPacks),
          isPreview: o.preview,
          result: s.status,
        },
      }),
  };
}

const STACK_TYPE = 'pulumi:pulumi:Stack';

/**
 * The events the service records, numbered from 0 in their own sequence: `record(event)` gives the event to send, or
 * `undefined` when the service's log leaves it out, which is the start and end of a `same` step of any resource but
 * the stack. Such a step changed nothing, and neither Pulumi's display (without `--show-sames`) nor the console shows
 * it; the summary still counts it (`resourceChanges.same`), which is what `stack history` reads. The log of an update
 * that changes one resource of a thousand then costs what changed, not the stack. Everything else is recorded as
 * made, the stack's own events included (their outputs are the stack's outputs), except debug diagnostics: the Node
 * SDK sends several per resource, which would make the log of that update cost the stack again, and the console
 * does not show them. `--json` and `--event-log` keep every event, as Pulumi prints them.
 */
export function serviceEventLog(): { record(event: EngineEvent): EngineEvent | undefined } {
  let sequence = 0;
  return {
    record(event) {
      const payload = 'resourcePreEvent' in event ? event.resourcePreEvent : 'resOutputsEvent' in event ? event.resOutputsEvent : undefined;
      if (payload && payload.metadata.op === 'same' && payload.metadata.type !== STACK_TYPE) return undefined;
      if ('diagnosticEvent' in event && event.diagnosticEvent.severity === 'debug') return undefined;
      return { ...event, sequence: sequence++ };
    },
  };
}
