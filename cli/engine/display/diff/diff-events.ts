/**
 * Pulumi's diff display (`pkg/backend/display/diff.go`, `ShowDiffEvents`): each engine event rendered as it comes —
 * the configuration (with `--show-config`), a block per step when it starts (its header, then the new values or the
 * property diff, children indented under the parents shown), its `--outputs:--` once known, diagnostics on stderr,
 * then `Resources:` and (not for a preview) `Duration:`. Events are Pulumi's (`apitype.EngineEvent`) with values in
 * wire form; text carries Pulumi's color tags until `colorize`.
 */
import { goSeconds } from '../render-text.js';
import { colorize, HEADLINE, opColor, opPrefix, pastTense, RED, RESET, BOLD, UNIMPORTANT, type Colorization, type DisplayOp } from './colors.js';
import { translateDetailedDiff } from './detailed-diff.js';
import { printDiffOfObjects } from './diff-printer.js';
import { indentation, printObject } from './property-printer.js';
import { isRootStack, outputsText, stepDetails, stepSummary, type StepMetadata } from './step-text.js';

/** The events the diff display reads (`apitype.EngineEvent`, the kinds it shows). */
export type DiffEvent = { sequence?: number; timestamp?: number } & (
  | { preludeEvent: { config: Record<string, string> } }
  | { resourcePreEvent: { metadata: StepMetadata; planning?: boolean } }
  | { resOutputsEvent: { metadata: StepMetadata; planning?: boolean } }
  | { resOpFailedEvent: { metadata: StepMetadata } }
  | { diagnosticEvent: { urn?: string; prefix?: string; message: string; severity: string } }
  | { stdoutEvent: { message: string } }
  | { summaryEvent: { durationSeconds: number; resourceChanges: Partial<Record<string, number>>; isPreview?: boolean } }
  | { cancelEvent: Record<string, never> }
);

/** Pulumi's display options the diff display follows. */
export interface DiffDisplayOptions {
  color: Colorization;
  showConfig?: boolean;
  showSames?: boolean;
  showReplacementSteps?: boolean;
  suppressOutputs?: boolean;
  showUrns?: boolean;
  /** `!--show-full-output`: long strings cut to three lines of 150 characters. */
  truncateOutput: boolean;
  debug?: boolean;
}

/** Where a rendered event goes. */
export interface Rendered {
  stdout?: string;
  stderr?: string;
}

const REPLACEMENT_STEPS: readonly DisplayOp[] = ['replace', 'create-replacement', 'delete-replaced', 'read-replacement', 'discard-replaced', 'remove-pending-replace', 'import-replacement'];

/** Pulumi's `shouldShow` for the diff display. */
export function shouldShow(step: StepMetadata, o: DiffDisplayOptions): boolean {
  if (step.op === 'same') return (step.old?.protect ?? false) !== (step.new?.protect ?? false) || o.showSames === true;
  if (!o.showReplacementSteps && step.logical === false && REPLACEMENT_STEPS.includes(step.op)) return false;
  return true;
}

/** `getIndent`: one level per ancestor shown (or the stack); an ancestor not seen yet (a delete's) stops the count. */
function indentOf(step: StepMetadata, seen: Map<string, StepMetadata>, o: DiffDisplayOptions): number {
  let indent = 0;
  for (let p = (step.new ?? step.old)?.parent ?? ''; p; ) {
    const parent = seen.get(p);
    if (!parent) break;
    if (isRootStack(parent.urn) || shouldShow(parent, o)) indent++;
    p = (parent.new ?? parent.old)?.parent ?? '';
  }
  return indent;
}

/** `renderDiff`: the step's summary and its details (a provider's detailed diff when it gave one). */
function renderStep(step: StepMetadata, planning: boolean, refresh: boolean, seen: Map<string, StepMetadata>, o: DiffDisplayOptions): string {
  const indent = indentOf(step, seen, o);
  const textOptions = { showUrns: o.showUrns === true, summary: false, truncateOutput: o.truncateOutput, showSecrets: false };
  let details = '';
  if (step.op !== 'same') {
    if (step.detailedDiff) {
      const out: string[] = [];
      const diff = translateDetailedDiff({ detailedDiff: step.detailedDiff, old: step.old, new: step.new }, refresh);
      const state = { planning, indent: indent + 1, truncateOutput: o.truncateOutput, showSecrets: false };
      if (diff) printDiffOfObjects(out, diff, undefined, { ...state, summary: false });
      else printObject(out, step.old?.inputs ?? {}, { ...state, op: 'same', prefix: true });
      details = out.join('');
    } else details = stepDetails(step, indent, planning, textOptions);
  }
  return colorize(stepSummary(step, indent, textOptions.showUrns), o.color) + colorize(details, o.color) + colorize(RESET, o.color);
}

function renderOutputs(step: StepMetadata, planning: boolean, seen: Map<string, StepMetadata>, o: DiffDisplayOptions): string {
  if (!shouldShow(step, o) && !isRootStack(step.urn)) return '';
  const refresh = seen.get(step.urn)?.op === 'refresh';
  if (step.op === 'import' || (refresh && step.op === 'update')) return renderStep(step, planning, refresh, seen, o);
  const indent = indentOf(step, seen, o);
  const textOptions = { showUrns: o.showUrns === true, summary: false, truncateOutput: o.truncateOutput, showSecrets: false };
  const text = outputsText(step, indent + 1, planning, refresh, o.showSames === true, textOptions);
  let out = '';
  if (refresh && (step.op !== 'refresh' || text !== '' || isRootStack(step.urn))) out += colorize(stepSummary(step, indent, textOptions.showUrns), o.color);
  if (!o.suppressOutputs && text !== '') {
    out += colorize(`${opColor(step.op)}${indentation(indent + 1, step.op, false)}--outputs:--${RESET}\n`, o.color);
    out += colorize(text, o.color);
  }
  return out;
}

/** Pulumi's order of step kinds (`deploy.StepOps`); the summary leaves out sames and reads. */
const SUMMARY_OPS: readonly DisplayOp[] = ['create', 'update', 'delete', 'replace', 'create-replacement', 'delete-replaced', 'refresh', 'discard-replaced', 'remove-pending-replace', 'import', 'import-replacement'];

/** `renderSummaryEvent`: `Resources:`, a line per kind of change, the total and unchanged count, then `Duration:`. */
export function summaryText(s: { durationSeconds: number; resourceChanges: Partial<Record<string, number>>; isPreview?: boolean }, errored: number, color: Colorization): string {
  const preview = s.isPreview === true;
  let out = colorize(`${HEADLINE}Resources:${RESET}\n`, color);
  let kinds = 0;
  let total = 0;
  for (const op of SUMMARY_OPS) {
    const n = s.resourceChanges[op] ?? 0;
    if (n <= 0) continue;
    kinds++;
    total += n;
    out += colorize(`    ${opPrefix(op)}${n} ${preview ? `to ${op}` : pastTense(op)}${RESET}\n`, color);
  }
  const pieces: string[] = [];
  if (kinds >= 2) pieces.push(`${BOLD}${total} ${total === 1 ? 'change' : 'changes'}${RESET}`);
  const same = s.resourceChanges.same ?? 0;
  if (same) pieces.push(`${same} unchanged`);
  if (pieces.length) out += `    ${pieces.map((p) => colorize(p, color)).join('. ')}\n`;
  // Pulumi writes this line's tags uncolorized (raw tags under `--color never`); ours follow the color mode.
  if (errored > 0) out += `    ${colorize(`${RED}${errored} errored${RESET}`, color)}\n`;
  if (!preview) out += colorize(`\n${HEADLINE}Duration:${RESET} ${goSeconds(Math.ceil(s.durationSeconds))}\n`, color);
  return out;
}

/** The state of one diff display: the steps seen (for indentation) and the failures counted. */
export class DiffRenderer {
  private readonly seen = new Map<string, StepMetadata>();
  private errored = 0;

  constructor(private readonly o: DiffDisplayOptions) {}

  /** `RenderDiffEvent`: the text an event adds, on stdout or (diagnostics) stderr. */
  render(e: DiffEvent): Rendered {
    const o = this.o;
    if ('preludeEvent' in e) {
      if (!o.showConfig) return {};
      const config = e.preludeEvent.config;
      const lines = Object.keys(config).sort().map((k) => `    ${k}: ${config[k]}\n`);
      return { stdout: colorize(`${UNIMPORTANT}Configuration:${RESET}\n`, o.color) + lines.join('') };
    }
    if ('resourcePreEvent' in e) {
      const { metadata, planning } = e.resourcePreEvent;
      this.seen.set(metadata.urn, metadata);
      if (metadata.op === 'refresh' || metadata.op === 'import') return {};
      if (!shouldShow(metadata, o) && !isRootStack(metadata.urn)) return {};
      return { stdout: renderStep(metadata, planning === true, false, this.seen, o) };
    }
    if ('resOutputsEvent' in e) return { stdout: renderOutputs(e.resOutputsEvent.metadata, e.resOutputsEvent.planning === true, this.seen, o) };
    if ('resOpFailedEvent' in e) {
      this.errored++;
      return {};
    }
    if ('diagnosticEvent' in e) {
      const d = e.diagnosticEvent;
      if (d.severity === 'debug' && !o.debug) return {};
      return { stderr: colorize((d.prefix ?? '') + d.message, o.color) };
    }
    if ('stdoutEvent' in e) return { stdout: colorize(e.stdoutEvent.message, o.color) };
    if ('summaryEvent' in e) return { stdout: summaryText(e.summaryEvent, this.errored, o.color) };
    return {};
  }
}
