/**
 * `--diff` on a live operation: the engine's events turned into the events Pulumi's diff display receives, in the
 * order and shape Pulumi's engine sends them — a step's start as its `resourcePreEvent`; its end as a
 * `resOutputsEvent` in a preview, and in an update for custom resources, deletes and refreshes only (a component's
 * outputs come from its `registerOutputs`, with the op and old state of its step); the stack's outputs last, before
 * the summary; default providers' steps left out as Pulumi's engine leaves them out. Diagnostics go to stderr.
 */
import type { Display, DisplayOptions, FinishedRun, FinishInfo } from '../display-types.js';
import type { DiagEvent, OutputsEvent, StepEvent } from '../events.js';
import { apiDetailedDiff, displayConfig } from '../engine-events.js';
import { policyCollector } from '../policy-section.js';
import { errorLines } from '../render-text.js';
import { isDefaultProviderStep } from '../step-visibility.js';
import type { ResourceState } from '../../state/deployment.js';
import { colorize, HEADLINE, RED, RESET, YELLOW, type Colorization } from './colors.js';
import { DiffRenderer, type DiffEvent, type Rendered } from './diff-events.js';
import { isRootStack, type StateMetadata, type StepMetadata } from './step-text.js';

const REPLACEMENT_HALVES = new Set(['create-replacement', 'delete-replaced']);

function stateOf(s: ResourceState | undefined): StateMetadata | null {
  if (!s) return null;
  return {
    type: s.type,
    urn: s.urn,
    custom: s.custom,
    id: s.id ?? '',
    parent: s.parent ?? '',
    protect: s.protect,
    retainOnDelete: s.retainOnDelete,
    inputs: s.inputs ?? {},
    outputs: s.outputs ?? {},
    provider: s.provider ?? '',
    initErrors: s.initErrors,
  };
}

function metadataOf(e: Pick<StepEvent, 'op' | 'urn' | 'type' | 'old' | 'new' | 'diffKeys' | 'replaceKeys' | 'detailedDiff'>): StepMetadata {
  return {
    op: e.op,
    urn: e.urn,
    type: e.type,
    old: stateOf(e.old),
    new: stateOf(e.new),
    keys: e.replaceKeys,
    diffs: e.diffKeys,
    detailedDiff: apiDetailedDiff(e.detailedDiff),
    // The create and delete halves of a replacement are the engine's, not the user's (Pulumi's `Step.Logical`).
    logical: !REPLACEMENT_HALVES.has(e.op),
    provider: e.new?.provider ?? e.old?.provider ?? '',
  };
}

const DIAG_COLOR: Partial<Record<DiagEvent['severity'], string>> = { debug: RESET, warning: YELLOW, error: RED };

/** Pulumi's diagnostic text (`diag.Sink.Stringify`): `<severity>: ` in its color (none for info), the message, a new line. */
function diagnostic(d: DiagEvent): DiffEvent {
  const color = DIAG_COLOR[d.severity];
  const prefix = color ? `${color}${d.severity}: ${RESET}` : '';
  return { diagnosticEvent: { prefix, message: `${RESET}${d.message.replace(/\n$/, '')}${RESET}\n`, severity: d.severity } };
}

/** The diff display of a live operation. */
export function diffDisplay(o: DisplayOptions): Display {
  const color: Colorization = o.color ? 'always' : 'never';
  const renderer = new DiffRenderer({
    color,
    showConfig: o.showConfig,
    showSames: o.showSames,
    showReplacementSteps: o.showReplacementSteps,
    suppressOutputs: o.suppressOutputs,
    truncateOutput: o.showFullOutput !== true,
    debug: o.verbose,
  });
  const emit = (r: Rendered) => {
    if (r.stdout) o.write(r.stdout);
    if (r.stderr) (o.writeErr ?? o.write)(r.stderr);
  };
  const started = new Map<string, StepEvent>();
  const policies = policyCollector();
  let stackOutputs: DiffEvent | undefined;
  let begun = false;
  let preview = false;
  const begin = () => {
    if (begun) return;
    begun = true;
    if (o.permalink) o.write(colorize(`${HEADLINE}View Live: <{%underline%}><{%fg 12%}>${o.permalink}${RESET}\n\n`, color));
    emit(renderer.render({ preludeEvent: { config: displayConfig(o.config ?? {}) } }));
  };

  const step = (e: StepEvent) => {
    if (isDefaultProviderStep(e)) return;
    begin();
    preview = e.preview;
    const metadata = metadataOf(e);
    if (e.phase === 'start') {
      started.set(e.urn, e);
      // A step's new state has no outputs before it runs in Pulumi's engine (ours proposes the old ones for an update).
      if (metadata.new) metadata.new.outputs = {};
      return emit(renderer.render({ resourcePreEvent: { metadata, planning: e.preview } }));
    }
    if (e.phase === 'failed') return emit(renderer.render({ resOpFailedEvent: { metadata } }));
    const custom = (e.new ?? e.old)?.custom === true;
    if (e.preview || custom || e.op === 'delete' || e.op === 'refresh') emit(renderer.render({ resOutputsEvent: { metadata, planning: e.preview } }));
  };

  const outputs = (e: OutputsEvent) => {
    const stepOf = started.get(e.urn);
    const metadata = metadataOf({ op: stepOf?.op ?? 'same', urn: e.urn, type: e.type, old: stepOf?.old, new: e.state });
    const event: DiffEvent = { resOutputsEvent: { metadata, planning: preview } };
    // Pulumi's engine holds the stack's outputs back until every step is done.
    if (isRootStack(e.urn)) stackOutputs = event;
    else emit(renderer.render(event));
  };

  return {
    events: {
      step,
      outputs,
      policy: (e) => policies.policy(e),
      diag: (d) => {
        begin();
        emit(renderer.render(diagnostic(d)));
      },
      programOutput: (_stream, text) => {
        begin();
        for (const line of text.replace(/\n$/, '').split('\n')) emit(renderer.render(diagnostic({ severity: 'info', message: line })));
      },
    },
    engineEvent: () => undefined,
    finish: (result: FinishedRun, isPreview: boolean, info: FinishInfo = {}) => {
      begin();
      if (stackOutputs) emit(renderer.render(stackOutputs));
      const durationSeconds = (info.durationMs ?? 0) / 1000;
      const section = policies.section(result.policyPacks, { color: o.color, showRemediations: o.showPolicyRemediations });
      if (section.text) o.write(section.text);
      if (!section.mandatory) emit(renderer.render({ summaryEvent: { durationSeconds, resourceChanges: result.summary, isPreview } }));
      o.write(errorLines(o, result, isPreview, info));
    },
  };
}
