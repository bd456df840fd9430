/**
 * The live resource tree of a terminal: one row per resource under its parent, with its status and elapsed time,
 * redrawn in place at most every `throttleMs` (and each second while something runs), then diagnostics grouped by
 * resource and the closing lines.
 */
import { policyCollector } from './policy-section.js';
import type { Display, DisplayOptions, FinishedRun, FinishInfo, TerminalInfo } from './display-types.js';
import type { EngineEvents, StepEvent, StepOp } from './events.js';
import { BOLD, closingText, diagPrefix, formatElapsed, isHidden, OP_COLOR, paint, RED, SYMBOL, VERBS } from './render-text.js';
import { STACK_TYPE, urnName } from '../resource/urn.js';
import { isDefaultProviderStep } from './step-visibility.js';
import type { PropertyMap } from '../resource/properties.js';

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


/** The live resource tree of a terminal. */
export class LiveTree implements Display {
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
  private readonly policies = policyCollector();
  /** The stack's outputs now and before the run, for the Outputs section. */
  private stack: { outputs?: PropertyMap; olds?: PropertyMap } | undefined;

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
        this.addDiag(d.urn ?? '', `${diagPrefix(d, o.color)}${d.message.trimEnd()}`);
      },
      programOutput: (_s, text) => this.addDiag('', text.replace(/\n$/, '')),
      outputs: (e) => {
        if (e.type === STACK_TYPE) this.stack = { ...this.stack, outputs: e.state.outputs };
      },
      policy: (e) => this.policies.policy(e),
    };
  }

  engineEvent(): void {}

  private addDiag(urn: string, text: string): void {
    const list = this.diags.get(urn) ?? [];
    list.push(text);
    this.diags.set(urn, list);
  }

  private step(e: StepEvent): void {
    if (e.type === STACK_TYPE) this.stack = { outputs: e.new?.outputs ?? this.stack?.outputs, olds: e.old?.outputs ?? this.stack?.olds };
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
      if (isDefaultProviderStep(row)) continue;
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

  finish(result: FinishedRun, preview: boolean, info: FinishInfo = {}): void {
    this.finished = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    let out = this.drawnLines ? `\x1b[${this.drawnLines}A\r\x1b[J` : '';
    this.drawnLines = 0;
    if (this.rows.size) out += `${this.frame(false).join('\n')}\n`;
    const policies = this.policies.section(result.policyPacks, { color: this.o.color, showRemediations: this.o.showPolicyRemediations });
    if (policies.text) out += `\n${policies.text}`;
    if (this.diags.size) {
      const groups = [...this.diags].map(([urn, lines]) => {
        const row = urn ? this.rows.get(urn) : [...this.rows.values()].find((r) => r.type === STACK_TYPE);
        const title = row ? `${row.type} (${urnName(row.urn)})` : urn ? urnName(urn) : 'stackyard';
        return `  ${title}:\n${lines.map((l) => l.split('\n').map((x) => `    ${x}`.trimEnd()).join('\n')).join('\n')}\n`;
      });
      out += `\n${paint(this.o.color, BOLD, 'Diagnostics:')}\n${groups.join('\n')}`;
    }
    this.o.write(out + closingText(this.o, result, preview, info, this.stack, policies.mandatory));
  }
}
