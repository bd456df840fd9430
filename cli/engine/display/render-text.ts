/**
 * How steps, values, diagnostics and summaries read as text, in color or not: the symbols, colors and verbs of each
 * kind of step, the change summary and the closing lines every human-readable display ends with.
 */
import type { DisplayOptions, FinishedRun, FinishInfo } from './display-types.js';
import type { DiagEvent, StepOp } from './events.js';
import type { StackConfig } from '../config/program-config.js';
import { deepEqual, isSecret, type PropertyMap, type PropertyValue } from '../resource/properties.js';
import { objectText, printable } from './property-text.js';

export const SYMBOL: Record<StepOp, string> = {
  same: ' ',
  create: '+',
  update: '~',
  delete: '-',
  replace: '+-',
  'create-replacement': '++',
  'delete-replaced': '--',
  read: '>',
  import: '=',
  refresh: '~',
  discard: '<',
};

export const RED = 31;
export const GREEN = 32;
export const YELLOW = 33;
export const MAGENTA = 35;
export const CYAN = 36;
export const BOLD = 1;

export const OP_COLOR: Record<StepOp, number | undefined> = {
  same: undefined,
  create: GREEN,
  update: YELLOW,
  delete: RED,
  replace: MAGENTA,
  'create-replacement': GREEN,
  'delete-replaced': RED,
  read: CYAN,
  import: CYAN,
  refresh: YELLOW,
  discard: RED,
};

/** [in progress, done, as a preview] */
export const VERBS: Record<StepOp, [string, string, string]> = {
  same: ['', '', ''],
  create: ['creating', 'created', 'create'],
  update: ['updating', 'updated', 'update'],
  delete: ['deleting', 'deleted', 'delete'],
  replace: ['replacing', 'replaced', 'replace'],
  'create-replacement': ['creating replacement', 'created replacement', 'create replacement'],
  'delete-replaced': ['deleting original', 'deleted original', 'delete original'],
  read: ['reading', 'read', 'read'],
  import: ['importing', 'imported', 'import'],
  refresh: ['refreshing', 'refreshed', 'refresh'],
  discard: ['discarding', 'discarded', 'discard'],
};

export function paint(on: boolean | undefined, code: number | undefined, text: string): string {
  return on && code !== undefined && text ? `\x1b[${code}m${text}\x1b[0m` : text;
}

/** Renders a value, masking secrets. */
export function renderValue(v: PropertyValue | undefined): string {
  if (isSecret(v)) return '[secret]';
  if (Array.isArray(v)) return `[${v.map(renderValue).join(', ')}]`;
  if (typeof v === 'object' && v !== null) return `{${Object.entries(v).map(([k, x]) => `${k}: ${renderValue(x)}`).join(', ')}}`;
  return JSON.stringify(v) ?? 'undefined';
}

/** `1.5s`, `12s`, `2m5s`. */
export function formatElapsed(ms: number): string {
  if (ms < 10_000) return `${(Math.max(0, ms) / 1000).toFixed(1)}s`;
  if (ms < 60_000) return `${Math.round(ms / 1000)}s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${s % 60}s`;
}

/** Pulumi's order of step kinds in the summary (`deploy.StepOps`), reads left out. */
const SUMMARY_OPS: readonly StepOp[] = ['create', 'update', 'delete', 'replace', 'create-replacement', 'delete-replaced', 'refresh', 'discard', 'import'];

/**
 * Pulumi's change summary lines (`renderSummaryEvent`): `    + 3 to create` (preview) or `    + 3 created` per kind,
 * then `    4 changes. 2 unchanged` (the total only when two kinds or more changed).
 */
export function summaryLines(s: Partial<Record<StepOp, number>>, preview: boolean, color?: boolean): string {
  const lines: string[] = [];
  let kinds = 0;
  let total = 0;
  for (const op of SUMMARY_OPS) {
    const n = s[op] ?? 0;
    if (n <= 0) continue;
    kinds++;
    total += n;
    const [, past, future] = VERBS[op];
    lines.push(`    ${paint(color, OP_COLOR[op], `${SYMBOL[op].padEnd(2)}${n} ${preview ? `to ${future}` : past}`)}`);
  }
  const pieces: string[] = [];
  if (kinds >= 2) pieces.push(paint(color, BOLD, `${total} change${total === 1 ? '' : 's'}`));
  if (s.same) pieces.push(`${s.same} unchanged`);
  if (pieces.length) lines.push(`    ${pieces.join('. ')}`);
  return lines.map((l) => `${l}\n`).join('');
}

/** Go's `time.Duration` text of whole seconds: `5s`, `2m5s`, `1h0m3s`. */
export function goSeconds(totalSeconds: number): string {
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const sec = totalSeconds % 60;
  if (h) return `${h}h${m}m${sec}s`;
  if (m) return `${m}m${sec}s`;
  return `${sec}s`;
}

/** `Resources:` and the summary, then (not for a preview) `Duration:` rounded up to the second, as Pulumi ends. */
export function resultSummaryText(o: Pick<DisplayOptions, 'color'>, summary: Partial<Record<StepOp, number>>, preview: boolean, info: FinishInfo): string {
  let text = `${paint(o.color, MAGENTA, 'Resources:')}\n${summaryLines(summary, preview, o.color)}`;
  if (!preview) text += `\n${paint(o.color, MAGENTA, 'Duration:')} ${goSeconds(Math.ceil((info.durationMs ?? 0) / 1000))}\n`;
  return `${text}\n`;
}

/** The lines after the summary of a run that failed. */
export function errorLines(o: Pick<DisplayOptions, 'color'>, result: FinishedRun, preview: boolean, info: FinishInfo): string {
  const status = info.status ?? (result.ok ? 'succeeded' : 'failed');
  if (status !== 'failed') return '';
  return `${paint(o.color, RED, 'error:')} ${preview ? 'preview' : 'update'} failed\n${result.errors.map((e) => `    ${e}\n`).join('')}`;
}

/**
 * The body of Pulumi's `Outputs:` section for the stack (`getResourceOutputsPropertiesString`): every output of an
 * update; in a preview nothing when the outputs did not change (unless `--show-sames`). Outputs that changed
 * since the last update are marked `+`, `-` or `~ old => new`.
 */
export function outputsText(outs: PropertyMap, olds: PropertyMap | undefined, o: { planning: boolean; showSames: boolean; color?: boolean }): string {
  const showSames = o.showSames || !o.planning;
  if (!olds) return objectText(outs, 1, (k) => printable(outs[k]));
  const keys = [...new Set([...Object.keys(olds), ...Object.keys(outs)])].filter((k) => !k.startsWith('__')).sort();
  const changed = keys.filter((k) => !deepEqual(olds[k], outs[k]));
  if (changed.length === 0) return showSames ? objectText(outs, 1, (k) => printable(outs[k])) : '';
  const width = Math.max(0, ...changed.concat(showSames ? keys : []).map((k) => k.length));
  let text = '';
  for (const k of keys) {
    const title = `${k.padEnd(width)}: `;
    if (!(k in olds)) text += `  ${paint(o.color, GREEN, '+')} ${title}${objectText({ v: outs[k]! }, 1).replace(/^ *v: /, '')}`;
    else if (!(k in outs)) text += `  ${paint(o.color, RED, '-')} ${title}${objectText({ v: olds[k]! }, 1).replace(/^ *v: /, '')}`;
    else if (changed.includes(k)) text += `  ${paint(o.color, YELLOW, '~')} ${title}${renderValue(olds[k])} => ${renderValue(outs[k])}\n`;
    else if (showSames) text += `    ${title}${objectText({ v: outs[k]! }, 1).replace(/^ *v: /, '')}`;
  }
  return text;
}

/** `Configuration:` and one `key: value` line each (secrets as `[secret]`), as `pulumi --show-config` prints it. */
export function configText(config: StackConfig): string {
  const keys = Object.keys(config).sort();
  if (keys.length === 0) return '';
  return `Configuration:\n${keys.map((k) => `    ${k}: ${config[k]!.secret ? '[secret]' : config[k]!.value}\n`).join('')}\n`;
}

/** Whether a diagnostic is left out (debug messages unless `--verbose`). */
export function isHidden(d: DiagEvent, verbose?: boolean): boolean {
  return d.severity === 'debug' && !verbose;
}

/** `warning: `, `error: `… before a diagnostic's message (none for info). */
export function diagPrefix(d: DiagEvent, color?: boolean): string {
  return d.severity === 'info' ? '' : `${paint(color, d.severity === 'error' ? RED : d.severity === 'warning' ? YELLOW : undefined, d.severity)}: `;
}

/** Outputs, summary, duration and errors: the end of the live tree. */
export function closingText(
  o: DisplayOptions,
  result: FinishedRun,
  preview: boolean,
  info: FinishInfo,
  stack?: { outputs?: PropertyMap; olds?: PropertyMap },
  mandatoryViolation = false,
): string {
  let text = '';
  const outputs = stack && !o.suppressOutputs ? outputsText(stack.outputs ?? {}, stack.olds, { planning: preview, showSames: o.showSames === true, color: o.color }) : '';
  if (outputs) text += `\n${paint(o.color, MAGENTA, 'Outputs:')}\n${outputs}`;
  // as Pulumi: a run with a mandatory policy violation ends without the resource summary
  if (!mandatoryViolation) text += `\n${resultSummaryText(o, result.summary, preview, info)}`;
  return text + errorLines(o, result, preview, info);
}
