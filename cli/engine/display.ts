/** Renders engine events as Pulumi-like progress lines, or collects them for `--json`. */
import type { DeploymentResult } from './run-deployment.js';
import type { ChangeSummary, EngineEvents, StepEvent, StepOp } from './events.js';
import { isSecret, type PropertyMap, type PropertyValue } from './properties.js';

const SYMBOL: Record<StepOp, string> = {
  same: ' ',
  create: '+',
  update: '~',
  delete: '-',
  replace: '+-',
  'create-replacement': '++',
  'delete-replaced': '--',
  read: '>',
  refresh: '~',
  discard: '-',
};

const PAST: Partial<Record<StepOp, [string, string]>> = {
  create: ['create', 'created'],
  update: ['update', 'updated'],
  delete: ['delete', 'deleted'],
  replace: ['replace', 'replaced'],
  read: ['read', 'read'],
  same: ['same', 'unchanged'],
};

/** Options of the console display. */
export interface DisplayOptions {
  write: (text: string) => void;
  /** Show changed keys of updates and replaces (`--diff`). */
  diff?: boolean;
  /** Show debug diagnostics. */
  verbose?: boolean;
  /** Collect instead of printing (`--json`). */
  json?: boolean;
}

/** A display: the events to hand to the engine and a final summary. */
export interface Display {
  events: EngineEvents;
  finish(result: DeploymentResult, preview: boolean): void;
}

function name(urn: string): string {
  return urn.slice(urn.lastIndexOf('::') + 2);
}

/** Renders a value, masking secrets. */
export function renderValue(v: PropertyValue | undefined): string {
  if (isSecret(v)) return '[secret]';
  if (Array.isArray(v)) return `[${v.map(renderValue).join(', ')}]`;
  if (typeof v === 'object' && v !== null) return `{${Object.entries(v).map(([k, x]) => `${k}: ${renderValue(x)}`).join(', ')}}`;
  return JSON.stringify(v) ?? 'undefined';
}

/** Builds a display writing through `write`. */
export function createDisplay(o: DisplayOptions): Display {
  const steps: StepEvent[] = [];
  const diags: { severity: string; message: string; urn?: string }[] = [];
  const events: EngineEvents = {
    step: (e) => {
      if (e.phase === 'start') return;
      if (o.json) {
        if (e.phase === 'done') steps.push(e);
        return;
      }
      if (e.op === 'same' || e.op === 'create-replacement' || (e.op === 'delete-replaced' && e.phase === 'done')) return;
      const verb = PAST[e.op] ?? [e.op, e.op];
      const status = e.phase === 'failed' ? `**${verb[0]} failed**` : e.preview ? verb[0] : verb[1];
      const keys = o.diff && e.diffKeys?.length ? ` [diff: ${e.diffKeys.join(', ')}]` : '';
      const repl = e.replaceKeys?.length ? ` [replace: ${e.replaceKeys.join(', ')}]` : '';
      o.write(` ${SYMBOL[e.op].padEnd(2)} ${e.type} ${name(e.urn)} ${status}${keys}${repl}\n`);
    },
    diag: (d) => {
      if (d.severity === 'debug' && !o.verbose) return;
      if (o.json) return void diags.push(d);
      const prefix = d.severity === 'info' ? '' : `${d.severity}: `;
      o.write(`${d.urn ? `    ${name(d.urn)}: ` : ''}${prefix}${d.message.trimEnd()}\n`);
    },
    programOutput: (_s, text) => {
      if (!o.json) o.write(text);
    },
  };
  return {
    events,
    finish(result, preview) {
      if (o.json) {
        o.write(
          JSON.stringify(
            {
              steps: steps.map((s) => ({ op: s.op, urn: s.urn, type: s.type, ...(s.diffKeys?.length ? { diffKeys: s.diffKeys } : {}) })),
              diagnostics: diags,
              changeSummary: result.summary,
              ...(preview ? {} : { outputs: maskOutputs(result.outputs) }),
              ...(result.ok ? {} : { errors: result.errors }),
            },
            null,
            2,
          ) + '\n',
        );
        return;
      }
      const outs = Object.entries(result.outputs);
      if (outs.length && !preview) {
        o.write('\nOutputs:\n');
        for (const [k, v] of outs) o.write(`    ${k}: ${renderValue(v)}\n`);
      }
      o.write(`\nResources:\n${summaryLines(result.summary, preview)}`);
      if (!result.ok) {
        o.write(`\nerror: ${preview ? 'preview' : 'update'} failed\n`);
        for (const e of result.errors) o.write(`    ${e}\n`);
      }
    },
  };
}

function maskOutputs(m: PropertyMap): Record<string, unknown> {
  return Object.fromEntries(Object.entries(m).map(([k, v]) => [k, isSecret(v) ? '[secret]' : v]));
}

/** `+ 3 to create` / `+ 3 created` lines. */
export function summaryLines(s: ChangeSummary, preview: boolean): string {
  const lines: string[] = [];
  const row = (op: StepOp, future: string, past: string) => {
    const n = s[op] ?? 0;
    if (n > 0) lines.push(`    ${SYMBOL[op]} ${n} ${preview ? `to ${future}` : past}`);
  };
  row('create', 'create', 'created');
  row('update', 'update', 'updated');
  row('delete', 'delete', 'deleted');
  row('replace', 'replace', 'replaced');
  row('read', 'read', 'read');
  if (s.same) lines.push(`    ${s.same} unchanged`);
  if (lines.length === 0) lines.push('    no changes');
  return lines.join('\n') + '\n';
}
