/**
 * Renders an operation for people and for scripts:
 * - on a terminal, a live resource tree (parent/child indentation, status and elapsed time per resource) redrawn
 *   in place at most every `throttleMs`, then diagnostics, outputs and the change summary;
 * - elsewhere (and with `--diff`), one line per finished step, property diffs with `--diff`;
 * - `--json`: a preview prints one document shaped like Pulumi's `display.PreviewDigest`; other operations print
 *   each `EngineEvent` on its own line, as sent to the service.
 * Secret values are shown as `[secret]` everywhere.
 */
import { displayConfig, displayResource, type EngineEvent, type OperationStatus } from './engine-events.js';
import type { DiagEvent, EngineEvents, StepEvent, StepOp } from './events.js';
import type { StackConfig } from '../program/language-host.js';
import { deepEqual, isSecret, type PropertyMap, type PropertyValue } from '../resource/properties.js';
import type { DeploymentResult } from '../run-deployment.js';
import { STACK_TYPE, urnName } from '../resource/urn.js';

/** `--color` values (Pulumi's); `raw` is treated as `always`. */
export type ColorMode = 'always' | 'never' | 'auto' | 'raw';

/** A terminal the display may redraw in place. */
export interface TerminalInfo {
  columns: number;
  rows?: number;
}

/** The terminal behind a stream, or `undefined` when it is not one. */
export function terminalOf(stream: { isTTY?: boolean; columns?: number; rows?: number }): TerminalInfo | undefined {
  if (!stream.isTTY) return undefined;
  return { columns: stream.columns && stream.columns > 0 ? stream.columns : 80, ...(stream.rows ? { rows: stream.rows } : {}) };
}

/** Whether to color: `always`/`raw` and `never` win; `auto` colors a terminal unless `NO_COLOR` is set. */
export function colorEnabled(mode: ColorMode | undefined, isTTY: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  if (mode === 'always' || mode === 'raw') return true;
  if (mode === 'never') return false;
  return isTTY && !env.NO_COLOR;
}

/** What `pulumi`'s display flags ask to show or leave out. */
export interface DisplayFlags {
  /** `--show-sames`: resources that do not change too. */
  showSames?: boolean;
  /** `--show-reads`: resources read with `get`/`read` too. */
  showReads?: boolean;
  /** `--show-replacement-steps`: the create and delete halves of each replacement, one line each. */
  showReplacementSteps?: boolean;
  /** `--show-config`: the configuration first. */
  showConfig?: boolean;
  /** `--show-full-output`: lines are never cut to the terminal's width. */
  showFullOutput?: boolean;
  /** `--suppress-outputs`: no `Outputs:` section. */
  suppressOutputs?: boolean;
  /** `--suppress-progress`: one line per step, never a redrawn tree. */
  suppressProgress?: boolean;
}

/** Options of the display. */
export interface DisplayOptions extends DisplayFlags {
  write: (text: string) => void;
  /** Show property diffs of each step (`--diff`); prints lines even on a terminal. */
  diff?: boolean;
  /** Show debug diagnostics. */
  verbose?: boolean;
  /** `--json`: `digest` (or `true`) prints one PreviewDigest at the end, `lines` one EngineEvent per line. */
  json?: boolean | 'digest' | 'lines';
  /** Draw a live tree on this terminal. */
  terminal?: TerminalInfo;
  color?: boolean;
  /** Shown in the preview digest. */
  config?: StackConfig;
  now?: () => number;
  /** Minimum time between two redraws of the live tree (default 100 ms). */
  throttleMs?: number;
}

/** How an operation ended, for the closing lines. */
export interface FinishInfo {
  durationMs?: number;
  status?: OperationStatus;
}

/** A display: the events to hand to the engine, the operation's EngineEvents, and the closing summary. */
export interface Display {
  events: EngineEvents;
  /** Receives the operation's EngineEvents (printed in `--json` lines mode, ignored otherwise). */
  engineEvent(e: EngineEvent): void;
  finish(result: DeploymentResult, preview: boolean, info?: FinishInfo): void;
}

const SYMBOL: Record<StepOp, string> = {
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

const RED = 31;
const GREEN = 32;
const YELLOW = 33;
const MAGENTA = 35;
const CYAN = 36;
const BOLD = 1;

const OP_COLOR: Record<StepOp, number | undefined> = {
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
const VERBS: Record<StepOp, [string, string, string]> = {
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

function paint(on: boolean | undefined, code: number | undefined, text: string): string {
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

/** Builds a display writing through `write`. */
export function createDisplay(o: DisplayOptions): Display {
  if (o.json === 'lines') return jsonLinesDisplay(o);
  if (o.json) return digestDisplay(o);
  if (o.showConfig) o.write(configText(o.config ?? {}));
  if (o.terminal && !o.diff && !o.suppressProgress && !o.showReplacementSteps) {
    return new LiveTree(o, o.showFullOutput ? { ...o.terminal, columns: Number.POSITIVE_INFINITY } : o.terminal);
  }
  return plainDisplay(o);
}

/** `Configuration:` and one `key: value` line each (secrets as `[secret]`), as `pulumi --show-config` prints it. */
function configText(config: StackConfig): string {
  const keys = Object.keys(config).sort();
  if (keys.length === 0) return '';
  return `Configuration:\n${keys.map((k) => `    ${k}: ${config[k]!.secret ? '[secret]' : config[k]!.value}\n`).join('')}\n`;
}

/** Whether a step gets a line of its own in the plain display. */
function plainShows(e: StepEvent, o: DisplayFlags): boolean {
  if (e.op === 'delete-replaced' && e.phase === 'failed') return true;
  if (e.op === 'same') return o.showSames === true;
  if (e.op === 'read') return o.showReads === true;
  if (e.op === 'create-replacement' || e.op === 'delete-replaced') return o.showReplacementSteps === true;
  return true;
}

function isHidden(d: DiagEvent, verbose?: boolean): boolean {
  return d.severity === 'debug' && !verbose;
}

/** Outputs, summary, duration and errors: the end of every human-readable display. */
function closingText(o: DisplayOptions, result: DeploymentResult, preview: boolean, info: FinishInfo): string {
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

function plainDisplay(o: DisplayOptions): Display {
  return {
    events: {
      step: (e) => {
        if (e.phase === 'start' || !plainShows(e, o)) return;
        const [, past, future] = VERBS[e.op];
        const status = e.phase === 'failed' ? paint(o.color, RED, `**${VERBS[e.op][0] || e.op} failed**`) : e.preview ? future : past;
        const keys = o.diff && e.diffKeys?.length ? ` [diff: ${e.diffKeys.join(', ')}]` : '';
        const repl = e.replaceKeys?.length ? ` [replace: ${e.replaceKeys.join(', ')}]` : '';
        o.write(` ${paint(o.color, OP_COLOR[e.op], SYMBOL[e.op].padEnd(2))} ${e.type} ${urnName(e.urn)} ${status}${keys}${repl}\n`);
        if (o.diff) for (const line of propertyDiffLines(e, o.color)) o.write(`${line}\n`);
      },
      diag: (d) => {
        if (isHidden(d, o.verbose)) return;
        const prefix = d.severity === 'info' ? '' : `${paint(o.color, d.severity === 'error' ? RED : d.severity === 'warning' ? YELLOW : undefined, d.severity)}: `;
        o.write(`${d.urn ? `    ${urnName(d.urn)}: ` : ''}${prefix}${d.message.trimEnd()}\n`);
      },
      programOutput: (_s, text) => o.write(text),
    },
    engineEvent: () => undefined,
    finish: (result, preview, info = {}) => o.write(closingText(o, result, preview, info)),
  };
}

function jsonLinesDisplay(o: DisplayOptions): Display {
  return {
    events: {},
    engineEvent: (e) => o.write(`${JSON.stringify(e)}\n`),
    finish: () => undefined,
  };
}

/** `display.PreviewStep`. */
interface PreviewStep {
  op: StepOp;
  urn: string;
  provider?: string;
  oldState?: Record<string, unknown>;
  newState?: Record<string, unknown>;
  diffReasons?: string[];
  replaceReasons?: string[];
  detailedDiff: null;
}

/** Steps a preview digest lists: Pulumi's defaults hide sames (but not the stack), replacement halves and reads. */
function digestShows(e: StepEvent, o: DisplayFlags): boolean {
  if (e.op === 'same') return e.type === STACK_TYPE || o.showSames === true;
  if (e.op === 'read') return o.showReads === true;
  if (e.op === 'create-replacement' || e.op === 'delete-replaced') return o.showReplacementSteps === true;
  return true;
}

function digestDisplay(o: DisplayOptions): Display {
  const steps: PreviewStep[] = [];
  const diagnostics: { urn?: string; message: string; severity: string }[] = [];
  return {
    events: {
      step: (e) => {
        if (e.phase !== 'start' || !digestShows(e, o)) return;
        const provider = e.new?.provider ?? e.old?.provider;
        steps.push({
          op: e.op,
          urn: e.urn,
          ...(provider ? { provider } : {}),
          ...(e.old ? { oldState: displayResource(e.old) } : {}),
          ...(e.new ? { newState: displayResource(e.new) } : {}),
          ...(e.diffKeys?.length ? { diffReasons: e.diffKeys } : {}),
          ...(e.replaceKeys?.length ? { replaceReasons: e.replaceKeys } : {}),
          detailedDiff: null,
        });
      },
      diag: (d) => {
        if (d.severity === 'debug') return;
        const prefix = d.severity === 'warning' || d.severity === 'error' ? `${d.severity}: ` : '';
        diagnostics.push({ ...(d.urn ? { urn: d.urn } : {}), message: `${prefix}${d.message}`, severity: d.severity });
      },
      programOutput: (_s, text) => void diagnostics.push({ message: text, severity: 'info' }),
    },
    engineEvent: () => undefined,
    finish: (result, _preview, info = {}) => {
      const config = o.config ? displayConfig(o.config) : {};
      const digest = {
        ...(Object.keys(config).length ? { config } : {}),
        ...(steps.length ? { steps } : {}),
        ...(diagnostics.length ? { diagnostics } : {}),
        // Go's time.Duration: nanoseconds
        ...(info.durationMs ? { duration: Math.round(info.durationMs * 1e6) } : {}),
        ...(Object.keys(result.summary).length ? { changeSummary: result.summary } : {}),
      };
      o.write(`${JSON.stringify(digest, null, 4)}\n`);
    },
  };
}

interface Row {
  urn: string;
  type: string;
  parent?: string;
  op: StepOp;
  phase: 'running' | 'done' | 'failed';
  started: number;
  ended?: number;
  info: string;
  preview: boolean;
}

interface Segment {
  text: string;
  color?: number;
}

/** Fits segments into `width` visible columns (cutting with `…`), coloring after measuring. */
function fitLine(segments: Segment[], width: number, color?: boolean): string {
  let left = width;
  let out = '';
  for (const s of segments) {
    if (left <= 0) break;
    const text = s.text.length > left ? `${s.text.slice(0, left - 1)}…` : s.text;
    left -= text.length;
    out += paint(color, s.color, text);
  }
  return out.trimEnd();
}

function isDefaultProvider(urn: string, type: string): boolean {
  return type.startsWith('pulumi:providers:') && urnName(urn).startsWith('default');
}

/** The live resource tree of a terminal. */
class LiveTree implements Display {
  readonly events: EngineEvents;
  private readonly rows = new Map<string, Row>();
  private readonly diags = new Map<string, string[]>();
  private readonly now: () => number;
  private readonly throttleMs: number;
  private drawnLines = 0;
  private lastDraw = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private timerDue = 0;
  private finished = false;

  constructor(
    private readonly o: DisplayOptions,
    private readonly terminal: TerminalInfo,
  ) {
    this.now = o.now ?? Date.now;
    this.throttleMs = o.throttleMs ?? 100;
    this.events = {
      step: (e) => this.step(e),
      diag: (d) => {
        if (isHidden(d, o.verbose)) return;
        const prefix = d.severity === 'info' ? '' : `${paint(o.color, d.severity === 'error' ? RED : d.severity === 'warning' ? YELLOW : undefined, d.severity)}: `;
        this.addDiag(d.urn ?? '', `${prefix}${d.message.trimEnd()}`);
      },
      programOutput: (_s, text) => this.addDiag('', text.replace(/\n$/, '')),
    };
  }

  engineEvent(): void {}

  private addDiag(urn: string, text: string): void {
    const list = this.diags.get(urn) ?? [];
    list.push(text);
    this.diags.set(urn, list);
  }

  private step(e: StepEvent): void {
    const existing = this.rows.get(e.urn);
    const half = e.op === 'create-replacement' || e.op === 'delete-replaced';
    if (existing && half && existing.op === 'replace') {
      if (e.phase === 'failed') this.update(existing, 'failed', e);
      return;
    }
    const row: Row = existing ?? { urn: e.urn, type: e.type, op: e.op, phase: 'running', started: this.now(), info: '', preview: e.preview };
    row.op = e.op;
    row.parent = e.new?.parent ?? e.old?.parent ?? row.parent;
    if (e.phase === 'start') {
      row.phase = 'running';
      row.started = this.now();
      row.ended = undefined;
    }
    if (e.diffKeys?.length) row.info = `[diff: ${e.diffKeys.map((k) => `~${k}`).join(', ')}]`;
    this.rows.set(e.urn, row);
    if (e.phase !== 'start') this.update(row, e.phase, e);
    this.schedule();
  }

  private update(row: Row, phase: 'done' | 'failed', e: StepEvent): void {
    row.phase = phase;
    row.ended = this.now();
    if (phase === 'failed' && e.error) row.info = e.error.split('\n')[0]!;
  }

  /** Redraws within `throttleMs` of the last redraw, and every second while something is running. */
  private schedule(delayMs?: number): void {
    if (this.finished) return;
    const due = delayMs === undefined ? Math.max(this.now(), this.lastDraw + this.throttleMs) : this.now() + delayMs;
    if (this.timer && this.timerDue <= due) return;
    clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.draw();
    }, due - this.now());
    this.timer.unref?.();
  }

  private draw(): void {
    const lines = this.frame(true);
    let out = this.drawnLines ? `\x1b[${this.drawnLines}A\r` : '';
    for (const line of lines) out += `\x1b[2K${line}\n`;
    if (lines.length < this.drawnLines) out += '\x1b[J';
    this.drawnLines = lines.length;
    this.lastDraw = this.now();
    this.o.write(out);
    if ([...this.rows.values()].some((r) => r.phase === 'running')) this.schedule(1000);
  }

  /** Header and tree lines; the live frame keeps to the terminal's height. */
  private frame(live: boolean): string[] {
    const ordered = this.treeOrder();
    const typeCells = ordered.map(({ row, prefix }) => `${prefix}${row.type}`);
    const names = ordered.map(({ row }) => urnName(row.urn));
    const statuses = ordered.map(({ row }) => this.status(row, live));
    const typeW = Math.max(4, ...typeCells.map((t) => t.length));
    const nameW = Math.max(4, ...names.map((n) => n.length));
    const statusW = Math.max(6, ...statuses.map((s) => s.length));
    const width = this.terminal.columns;
    const header = fitLine([{ text: `     ${'Type'.padEnd(typeW)}  ${'Name'.padEnd(nameW)}  ${'Status'.padEnd(statusW)}  Info` }], width, this.o.color);
    let lines = ordered.map(({ row }, i) =>
      fitLine(
        [
          { text: ' ' },
          { text: (row.phase === 'failed' ? '' : SYMBOL[row.op]).padEnd(2), color: OP_COLOR[row.op] },
          { text: `  ${typeCells[i]!.padEnd(typeW)}  ${names[i]!.padEnd(nameW)}  ` },
          { text: statuses[i]!.padEnd(statusW), color: row.phase === 'failed' ? RED : undefined },
          { text: row.info ? `  ${row.info}` : '' },
        ],
        width,
        this.o.color,
      ),
    );
    const maxRows = live && this.terminal.rows ? Math.max(2, this.terminal.rows - 2) : Number.POSITIVE_INFINITY;
    if (lines.length > maxRows) {
      const hidden = lines.length - (maxRows - 1);
      lines = [`     … ${hidden} more above`, ...lines.slice(hidden)];
    }
    return [header, ...lines];
  }

  private status(row: Row, live: boolean): string {
    const isStack = row.type === STACK_TYPE;
    const [ing, past, future] = VERBS[row.op];
    if (isStack && live && !this.finished) return `${ing || 'running'}${row.preview ? '' : ` (${formatElapsed(this.now() - row.started)})`}`;
    if (row.phase === 'failed') return `**${ing || row.op} failed**`;
    if (row.preview) return future;
    if (row.op === 'same') return '';
    const elapsed = formatElapsed((row.ended ?? this.now()) - row.started);
    return `${row.phase === 'running' ? ing : past} (${elapsed})`;
  }

  /** Visible rows depth-first under their parents, with tree-drawing prefixes. */
  private treeOrder(): { row: Row; prefix: string }[] {
    const visible = new Set<string>();
    for (const row of this.rows.values()) {
      if (isDefaultProvider(row.urn, row.type)) continue;
      const shown = row.op === 'same' ? row.type === STACK_TYPE || this.o.showSames : row.op !== 'read' || this.o.showReads;
      if (shown) {
        for (let u: string | undefined = row.urn; u && this.rows.has(u) && !visible.has(u); u = this.rows.get(u)!.parent) visible.add(u);
      }
    }
    const children = new Map<string, Row[]>();
    const roots: Row[] = [];
    for (const row of this.rows.values()) {
      if (!visible.has(row.urn)) continue;
      if (row.parent && visible.has(row.parent)) children.set(row.parent, [...(children.get(row.parent) ?? []), row]);
      else roots.push(row);
    }
    const out: { row: Row; prefix: string }[] = [];
    const walk = (row: Row, lead: string, branch: string) => {
      out.push({ row, prefix: branch });
      const kids = children.get(row.urn) ?? [];
      kids.forEach((kid, i) => {
        const last = i === kids.length - 1;
        walk(kid, `${lead}${last ? '   ' : '│  '}`, `${lead}${last ? '└─ ' : '├─ '}`);
      });
    };
    for (const root of roots) walk(root, '', '');
    return out;
  }

  finish(result: DeploymentResult, preview: boolean, info: FinishInfo = {}): void {
    this.finished = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    let out = this.drawnLines ? `\x1b[${this.drawnLines}A\r\x1b[J` : '';
    this.drawnLines = 0;
    if (this.rows.size) out += `${this.frame(false).join('\n')}\n`;
    if (this.diags.size) {
      const groups = [...this.diags].map(([urn, lines]) => {
        const row = urn ? this.rows.get(urn) : [...this.rows.values()].find((r) => r.type === STACK_TYPE);
        const title = row ? `${row.type} (${urnName(row.urn)})` : urn ? urnName(urn) : 'stackyard';
        return `  ${title}:\n${lines.map((l) => l.split('\n').map((x) => `    ${x}`).join('\n')).join('\n')}\n`;
      });
      out += `\n${paint(this.o.color, BOLD, 'Diagnostics:')}\n${groups.join('\n')}`;
    }
    this.o.write(out + closingText(this.o, result, preview, info));
  }
}
