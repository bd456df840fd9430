/**
 * Renders an operation for people and for scripts:
 * - on a terminal, a live resource tree (parent/child indentation, status and elapsed time per resource) redrawn
 *   in place at most every `throttleMs`, then diagnostics, outputs and the change summary;
 * - elsewhere, one line per finished step;
 * - `--diff`: Pulumi's diff view, a block per step with its property diff (diff/);
 * - `--json`: a preview prints one document shaped like Pulumi's `display.PreviewDigest`, an update (destroy,
 *   refresh) each `EngineEvent` on its own line, as sent to the service (json/).
 * Secret values are shown as `[secret]` everywhere.
 */
import type { ColorMode, Display, DisplayOptions, TerminalInfo } from './display-types.js';
import { diffDisplay } from './diff/diff-display.js';
import { eventLinesDisplay } from './json/event-lines.js';
import { previewDigestDisplay } from './json/preview-digest.js';
import { LiveTree } from './live-tree.js';
import { configText } from './render-text.js';
import { progressLines } from './progress-lines.js';

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
  if (o.json === 'lines') return eventLinesDisplay(o);
  if (o.json) return previewDigestDisplay(o);
  if (o.diff) return diffDisplay(o);
  if (o.terminal && !o.suppressProgress && !o.showReplacementSteps) {
    if (o.permalink) o.write(`View in Browser (Ctrl+O): ${o.permalink}\n\n`);
    if (o.showConfig) o.write(configText(o.config ?? {}));
    return new LiveTree(o, o.showFullOutput ? { ...o.terminal, columns: Number.POSITIVE_INFINITY } : o.terminal);
  }
  return progressLines(o);
}
