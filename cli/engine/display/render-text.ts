/**
 * How steps, values, diagnostics and summaries read as text, in color or not: the symbols, colors and verbs of each
 * kind of step, property diffs, the change summary and the closing lines every human-readable display ends with.
 */
import type { DisplayOptions, FinishedRun, FinishInfo } from './display-types.js';
import type { DiagEvent, StepEvent, StepOp } from './events.js';
import type { StackConfig } from '../config/program-config.js';
import { deepEqual, isSecret, type PropertyMap, type PropertyValue } from '../resource/properties.js';

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
  discard: '-',
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

/**
 * The property changes of a step's inputs, one line each: `+ key: value` added, `- key: value` removed,
 * `~ key: old => new` changed. Engine-internal keys (`__provider`, …) are left out.
 */
export function propertyDiffLines(e: StepEvent, color?: boolean, indent = '      '): string[] {
  const olds: PropertyMap = e.old?.inputs ?? {};
  const news: PropertyMap = e.new?.inputs ?? {};
  const removing = e.op === 'delete' || e.op === 'delete-replaced';
  const adding = e.op === 'create' || e.op === 'create-replacement' || e.op === 'read' || e.op === 'import';
  const keys = [...new Set([...Object.keys(removing ? {} : news), ...Object.keys(adding ? {} : olds)])].filter((k) => !k.startsWith('__'));
  const lines: string[] = [];
  for (const k of keys) {
    const inOld = !adding && k in olds;
    const inNew = !removing && k in news;
    if (inNew && !inOld) lines.push(`${indent}${paint(color, GREEN, '+')} ${k}: ${renderValue(news[k])}`);
    else if (inOld && !inNew) lines.push(`${indent}${paint(color, RED, '-')} ${k}: ${renderValue(olds[k])}`);
    else if (!deepEqual(olds[k], news[k])) lines.push(`${indent}${paint(color, YELLOW, '~')} ${k}: ${renderValue(olds[k])} => ${renderValue(news[k])}`);
  }
  return lines;
}

/** Pulumi's change summary lines: `    + 3 to create` (preview) or `    + 3 created`, then `    2 unchanged`. */
export function summaryLines(s: Partial<Record<StepOp, number>>, preview: boolean, color?: boolean): string {
  const lines: string[] = [];
  const row = (op: StepOp) => {
    const n = s[op] ?? 0;
    const [, past, future] = VERBS[op];
    if (n > 0) lines.push(`    ${paint(color, OP_COLOR[op], SYMBOL[op].padEnd(2))}${n} ${preview ? `to ${future}` : past}`);
  };
  for (const op of ['create', 'update', 'delete', 'replace', 'read', 'import'] as const) row(op);
  if (s.same) lines.push(`    ${s.same} unchanged`);
  if (lines.length === 0) lines.push('    no changes');
  return lines.join('\n') + '\n';
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

/** Outputs, summary, duration and errors: the end of every human-readable display. */
export function closingText(o: DisplayOptions, result: FinishedRun, preview: boolean, info: FinishInfo): string {
  let text = '';
  const outs = Object.entries(result.outputs);
  if (outs.length && !preview && !o.suppressOutputs) {
    text += '\nOutputs:\n';
    for (const [k, v] of outs) text += `    ${k}: ${renderValue(v)}\n`;
  }
  text += `\n${paint(o.color, BOLD, 'Resources:')}\n${summaryLines(result.summary, preview, o.color)}`;
  if (info.durationMs !== undefined && !preview) text += `\nDuration: ${formatElapsed(info.durationMs)}\n`;
  const status = info.status ?? (result.ok ? 'succeeded' : 'failed');
  if (status === 'failed') {
    text += `\n${paint(o.color, RED, 'error:')} ${preview ? 'preview' : 'update'} failed\n`;
    for (const e of result.errors) text += `    ${e}\n`;
  }
  return text;
}
