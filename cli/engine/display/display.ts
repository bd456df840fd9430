/**
 * Renders an operation for people and for scripts:
 * - on a terminal, a live resource tree (parent/child indentation, status and elapsed time per resource) redrawn
 *   in place at most every `throttleMs`, then diagnostics, outputs and the change summary;
 * - elsewhere (and with `--diff`), one line per finished step, property diffs with `--diff`;
 * - `--json`: a preview prints one document shaped like Pulumi's `display.PreviewDigest`; other operations print
 *   each `EngineEvent` on its own line, as sent to the service.
 * Secret values are shown as `[secret]` everywhere.
 */
import { displayConfig, displayResource } from './engine-events.js';
import type { ColorMode, Display, DisplayFlags, DisplayOptions, TerminalInfo } from './display-types.js';
import type { StepEvent, StepOp } from './events.js';
import { LiveTree } from './live-tree.js';
import { closingText, configText, diagPrefix, isHidden, OP_COLOR, paint, propertyDiffLines, RED, SYMBOL, VERBS } from './render-text.js';
import { STACK_TYPE, urnName } from '../resource/urn.js';

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

/** Whether a step gets a line of its own in the plain display. */
function plainShows(e: StepEvent, o: DisplayFlags): boolean {
  if (e.op === 'delete-replaced' && e.phase === 'failed') return true;
  if (e.op === 'same') return o.showSames === true;
  if (e.op === 'read') return o.showReads === true;
  if (e.op === 'create-replacement' || e.op === 'delete-replaced') return o.showReplacementSteps === true;
  return true;
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
        o.write(`${d.urn ? `    ${urnName(d.urn)}: ` : ''}${diagPrefix(d, o.color)}${d.message.trimEnd()}\n`);
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
