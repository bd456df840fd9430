/**
 * The display's shapes: what the CLI asks of it (flags, terminal, color) and what it offers the engine (a
 * `Display`). Their own module, so that each way of rendering (plain lines, preview digest, live tree) can name
 * them without importing the module that chooses between them.
 */
import type { PolicyPackRun } from './policy-events.js';
import type { EngineEvent, OperationStatus } from './engine-events.js';
import type { ChangeSummary, EngineEvents } from './events.js';
import type { StackConfig } from '../config/program-config.js';
import type { PropertyMap } from '../resource/properties.js';

/** `--color` values (Pulumi's); `raw` is treated as `always`. */
export type ColorMode = 'always' | 'never' | 'auto' | 'raw';

/** A terminal the display may redraw in place. */
export interface TerminalInfo {
  columns: number;
  rows?: number;
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
  /** `--suppress-permalink`: no `View Live:` line. */
  suppressPermalink?: boolean;
  /** `--show-policy-remediations`: each remediation in the Policies section, not a count per policy. */
  showPolicyRemediations?: boolean;
}

/** Options of the display. */
export interface DisplayOptions extends DisplayFlags {
  write: (text: string) => void;
  /** Where diagnostics go in the `--diff` view (as Pulumi's diff view writes them to stderr); `write` when absent. */
  writeErr?: (text: string) => void;
  /** Pulumi's diff view (`--diff`): a block per step with its property diff, even on a terminal. */
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
  /** The operation's console page, shown first as Pulumi shows it (`View Live:`, or `View in Browser (Ctrl+O):` live). */
  permalink?: string;
  /** Minimum time between two redraws of the live tree (default 100 ms). */
  throttleMs?: number;
}

/** How an operation ended, for the closing lines. */
export interface FinishInfo {
  durationMs?: number;
  status?: OperationStatus;
}

/** What the closing lines show of a finished run (a `DeploymentResult` is one). */
export interface FinishedRun {
  ok: boolean;
  errors: string[];
  summary: ChangeSummary;
  /** Stack outputs after the run. */
  outputs: PropertyMap;
  /** The policy packs that ran (the Policies section lists them). */
  policyPacks?: PolicyPackRun[];
}

/** A display: the events to hand to the engine, the operation's EngineEvents, and the closing summary. */
export interface Display {
  events: EngineEvents;
  /** Receives the operation's EngineEvents (printed in `--json` lines mode, ignored otherwise). */
  engineEvent(e: EngineEvent): void;
  finish(result: FinishedRun, preview: boolean, info?: FinishInfo): void;
}
