/**
 * Pulumi's non-interactive progress display (`progress.go` with its message renderer, `jsonmessage.go`): one line
 * per resource event as it happens, never redrawn — ` <op> <type> <name> <status> <info>` — then, once the run
 * ends, the rows still in progress (the stack first of all) printed as done, the Diagnostics, the stack's Outputs
 * and the Resources summary. Rows are flat: Pulumi indents children under their parent only in the interactive
 * tree. Default providers are engine-internal and never shown.
 */
import { policyCollector } from './policy-section.js';
import type { Display, DisplayOptions, FinishedRun, FinishInfo } from './display-types.js';
import type { DiagEvent, StepEvent, StepOp } from './events.js';
import { configText, diagPrefix, errorLines, isHidden, MAGENTA, OP_COLOR, outputsText, paint, RED, resultSummaryText, SYMBOL, VERBS } from './render-text.js';
import { isDefaultProviderStep } from './step-visibility.js';
import { typeDisplayName } from './property-text.js';
import { STACK_TYPE, urnName } from '../resource/urn.js';
import type { ResourceState } from '../state/deployment.js';
import { deepEqual } from '../resource/properties.js';

interface Row {
  urn: string;
  type: string;
  op: StepOp;
  custom: boolean;
  /** Pulumi's `hideRowIfUnnecessary`: a row nobody asked to see (a same without `--show-sames`). */
  hidden: boolean;
  done: boolean;
  failed: boolean;
  started?: number;
  ended?: number;
  diffKeys: string[];
  diags: DiagEvent[];
  state?: ResourceState;
  oldState?: ResourceState;
}

/** Pulumi's `getStepInProgressOpText` and its preview texts. */
function inProgressText(op: StepOp, preview: boolean): string {
  if (preview) return op === 'refresh' ? 'refreshing' : VERBS[op][2];
  return VERBS[op][0];
}

/** Pulumi's done texts: a preview says what it would do (a replacement half says `replace`), an update what it did. */
function doneText(op: StepOp, preview: boolean): string {
  if (preview) return op === 'create-replacement' || op === 'delete-replaced' ? 'replace' : VERBS[op][2];
  return op === 'refresh' ? 'refresh' : VERBS[op][1];
}

/** `(0.52s)` under a second, `(3s)` above, as Pulumi times a finished step. */
function doneTiming(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  return s < 1 ? `(${s.toFixed(2)}s)` : `(${Math.floor(s)}s)`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The non-interactive display. */
export function progressLines(o: DisplayOptions): Display {
  const now = o.now ?? Date.now;
  const rows = new Map<string, Row>();
  let stackUrn: string | undefined;
  let finished = false;
  let preview = false;
  let preludeShown = false;

  const prelude = () => {
    if (preludeShown) return;
    preludeShown = true;
    if (o.permalink) o.write(`${paint(o.color, MAGENTA, 'View Live:')} ${o.permalink}\n\n`);
    o.write(o.showConfig ? configText(o.config ?? {}) : '\n');
  };

  const rowOf = (urn: string, type: string): Row => {
    let row = rows.get(urn);
    if (!row) {
      row = { urn, type, op: 'same', custom: false, hidden: true, done: false, failed: false, diffKeys: [], diags: [] };
      rows.set(urn, row);
    }
    return row;
  };

  const isDone = (row: Row) => row.failed || finished || (row.urn !== stackUrn && row.done);

  const status = (row: Row): string => {
    if (row.failed) return paint(o.color, RED, `**${VERBS[row.op][0] || 'failed'}${VERBS[row.op][0] ? ' failed' : ''}**`);
    if (!isDone(row)) {
      if (row.urn === stackUrn && row.op === 'same') return 'running';
      const text = inProgressText(row.op, preview);
      const timed = !preview && row.op !== 'same' && row.started !== undefined;
      return paint(o.color, OP_COLOR[row.op], timed ? `${text} (${Math.floor((now() - row.started!) / 1000)}s)` : text);
    }
    const text = doneText(row.op, preview);
    const timed = !preview && row.op !== 'same' && row.started !== undefined && row.ended !== undefined;
    return paint(o.color, OP_COLOR[row.op], timed ? `${text} ${doneTiming(row.ended! - row.started!)}` : text);
  };

  const info = (row: Row): string => {
    const parts: string[] = [];
    const diff = row.op === 'same' ? '' : shortDiff(row);
    if (diff) parts.push(`[${diff}]`);
    if (finished) {
      const count = (s: DiagEvent['severity']) => row.diags.filter((d) => d.severity === s).length;
      if (count('error')) parts.push(plural(count('error'), 'error'));
      if (count('warning')) parts.push(plural(count('warning'), 'warning'));
      if (count('info')) parts.push(plural(count('info'), 'message'));
      if (count('debug')) parts.push(`${count('debug')} debug`);
    } else {
      const last = row.diags.at(-1);
      if (last) parts.push(`${diagPrefix(last, o.color)}${last.message.trimEnd()}`);
    }
    return parts.join('; ').split('\n')[0]!;
  };

  const print = (row: Row) => {
    if (row.hidden) return;
    const label = paint(o.color, OP_COLOR[row.op], SYMBOL[row.op].padEnd(2));
    o.write(` ${label} ${typeDisplayName(row.type)} ${urnName(row.urn)} ${status(row)} ${info(row)}\n`);
  };

  const shows = (e: StepEvent): boolean => {
    if (e.type === STACK_TYPE) return true;
    if (e.op === 'same') return o.showSames === true || (e.old?.protect ?? false) !== (e.new?.protect ?? false);
    return true;
  };

  const step = (e: StepEvent) => {
    if (isDefaultProviderStep(e)) return;
    if ((e.op === 'read' || e.op === 'discard') && !o.showReads) return;
    prelude();
    preview = e.preview;
    if (e.type === STACK_TYPE) stackUrn ??= e.urn;
    const row = rowOf(e.urn, e.type);
    if (shows(e)) row.hidden = false;
    row.op = e.op;
    row.custom = e.new?.custom ?? e.old?.custom ?? row.custom;
    if (e.new) row.state = e.new;
    if (e.old) row.oldState = e.old;
    if (e.diffKeys) row.diffKeys = e.diffKeys;
    if (e.phase === 'start') {
      row.started = now();
      row.ended = undefined;
      row.done = false;
      print(row);
      return;
    }
    if (e.phase === 'failed') {
      row.failed = true;
      print(row);
      return;
    }
    row.ended = now();
    row.done = true;
    // A preview's finished step, or a step of a component or an unchanged resource, would only repeat its line.
    if (e.op === 'refresh' || (!e.preview && row.custom && e.op !== 'same')) print(row);
  };

  const policies = policyCollector();
  const diag = (d: DiagEvent) => {
    if (isHidden(d, o.verbose)) return;
    prelude();
    const urn = d.urn ?? stackUrn;
    if (!urn) return;
    const row = rowOf(urn, d.urn ? (rows.get(d.urn)?.type ?? urnTypeOf(d.urn)) : STACK_TYPE);
    row.hidden = false;
    row.diags.push(d);
    print(row);
  };

  return {
    events: {
      step,
      outputs: (e) => {
        if (e.urn !== stackUrn) return;
        const row = rows.get(e.urn);
        if (row) row.state = e.state;
      },
      diag,
      programOutput: (_s, text) => {
        for (const line of text.replace(/\n$/, '').split('\n')) diag({ severity: 'info', message: line });
      },
      policy: (e) => policies.policy(e),
    },
    engineEvent: () => undefined,
    finish: (result: FinishedRun, isPreview: boolean, finishInfo: FinishInfo = {}) => {
      prelude();
      preview = isPreview;
      const inProgress = [...rows.values()].filter((r) => !isDone(r));
      finished = true;
      for (const row of inProgress) print(row);
      const section = policies.section(result.policyPacks, { color: o.color, showRemediations: o.showPolicyRemediations });
      let text = section.text + diagnosticsText([...rows.values()], o.color);
      const stack = stackUrn ? rows.get(stackUrn) : undefined;
      if (stack && !o.suppressOutputs) {
        const outputs = outputsText(stack.state?.outputs ?? {}, stack.oldState?.outputs, { planning: isPreview, showSames: o.showSames === true, color: o.color });
        if (outputs) text += `${paint(o.color, MAGENTA, 'Outputs:')}\n${outputs}\n`;
      }
      // as Pulumi: a run with a mandatory policy violation ends without the resource summary
      if (!section.mandatory) text += resultSummaryText(o, result.summary, isPreview, finishInfo);
      text += errorLines(o, result, isPreview, finishInfo);
      o.write(text);
    },
  };
}

/**
 * Pulumi's short diff of a step (`getDiffInfo`): `diff: ` then the added, removed and changed input keys, each group
 * after its sign (`+a,b-c~d`), limited to the keys the provider named when it named any.
 */
function shortDiff(row: Row): string {
  const olds = row.oldState?.inputs;
  const news = row.state?.inputs;
  if (!olds || !news) return row.diffKeys.length ? `diff: ~${[...row.diffKeys].sort().join(',')}` : '';
  const named = row.diffKeys.length ? new Set(row.diffKeys) : undefined;
  const keep = (k: string) => !k.startsWith('__') && (!named || named.has(k));
  const adds = Object.keys(news).filter((k) => keep(k) && !(k in olds));
  const deletes = Object.keys(olds).filter((k) => keep(k) && !(k in news));
  const updates = Object.keys(news).filter((k) => keep(k) && k in olds && !deepEqual(olds[k], news[k]));
  if (!adds.length && !deletes.length && !updates.length) return '';
  const group = (sign: string, keys: string[]) => (keys.length ? `${sign}${keys.sort().join(',')}` : '');
  return `diff: ${group('+', adds)}${group('-', deletes)}${group('~', updates)}`;
}

function urnTypeOf(urn: string): string {
  return urn.split('::')[2]?.split('$').at(-1) ?? '';
}

/** Pulumi's Diagnostics section: per resource `  <type> (<name>):`, its messages indented, a blank line after. */
function diagnosticsText(rows: Row[], color?: boolean): string {
  let text = '';
  for (const row of rows) {
    const lines = row.diags.flatMap((d) => `${diagPrefix(d, color)}${d.message}`.trimEnd().split('\n')).map((l) => `    ${l.trimEnd()}\n`);
    if (lines.length === 0) continue;
    if (!text) text = `${paint(color, MAGENTA, 'Diagnostics:')}\n`;
    text += `  ${typeDisplayName(row.type)} (${urnName(row.urn)}):\n${lines.join('')}\n`;
  }
  return text;
}
