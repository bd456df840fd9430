/**
 * Renders an operation for people and for scripts:
 * - on a terminal, a live resource tree (parent/child indentation, status and elapsed time per resource) redrawn
 *   in place at most every `throttleMs`, then diagnostics, outputs and the change summary;
 * - elsewhere, one line per finished step;
 * - `--diff`: Pulumi's diff view, a block per step with its property diff (diff/);
 * - `--json`: a preview prints one document shaped like Pulumi's `display.PreviewDigest`; other operations print
 *   each `EngineEvent` on its own line, as sent to the service.
 * Secret values are shown as `[secret]` everywhere.
 */
import { displayConfig, displayResource } from './engine-events.js';
import type { ColorMode, Display, DisplayFlags, DisplayOptions, TerminalInfo } from './display-types.js';
import type { StepEvent, StepOp } from './events.js';
import { diffDisplay } from './diff/diff-display.js';
import { LiveTree } from './live-tree.js';
import { configText } from './render-text.js';
import { progressLines } from './progress-lines.js';
import { isDefaultProviderStep } from './step-visibility.js';
import { STACK_TYPE } from '../resource/urn.js';

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
export function createDisplay(options: DisplayOptions): Display {
  const o = options.suppressPermalink ? { ...options, permalink: undefined } : options;
  if (o.json === 'lines') return jsonLinesDisplay(o);
  if (o.json) return digestDisplay(o);
  if (o.diff) return diffDisplay(o);
  if (o.terminal && !o.suppressProgress && !o.showReplacementSteps) {
    if (o.permalink) o.write(`View in Browser (Ctrl+O): ${o.permalink}\n\n`);
    if (o.showConfig) o.write(configText(o.config ?? {}));
    return new LiveTree(o, o.showFullOutput ? { ...o.terminal, columns: Number.POSITIVE_INFINITY } : o.terminal);
  }
  return progressLines(o);
}

function jsonLinesDisplay(o: DisplayOptions): Display {
  return {
    events: {},
    engineEvent: (e) => {
      // Pulumi drops its internal events (a default provider's steps) after numbering them, so gaps remain.
      const step = 'resourcePreEvent' in e ? e.resourcePreEvent : 'resOutputsEvent' in e ? e.resOutputsEvent : 'resOpFailedEvent' in e ? e.resOpFailedEvent : undefined;
      if (step && isDefaultProviderStep(step.metadata)) return;
      o.write(`${JSON.stringify(e)}\n`);
    },
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
  if (isDefaultProviderStep(e)) return false;
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
