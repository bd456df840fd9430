/**
 * Pulumi's color directives (`sdk/go/common/diag/colors`): text is built with `<{%fg 2%}>`-style tags, exactly where
 * Pulumi's diff display puts them, and colorized once at the edge. `never` drops the tags, `raw` keeps them (what
 * Pulumi's own golden files hold, so ours compare byte for byte), `always` turns them into Pulumi's 256-color codes.
 */
import type { StepOp } from '../events.js';

/** How tags become text: Pulumi's `colors.Colorization`. */
export type Colorization = 'always' | 'never' | 'raw';

const tag = (command: string) => `<{%${command}%}>`;

export const RESET = tag('reset');
export const BOLD = tag('bold');
export const RED = tag('fg 1');
export const GREEN = tag('fg 2');
export const YELLOW = tag('fg 3');
export const MAGENTA = tag('fg 5');
export const BRIGHT_RED = tag('fg 9');
export const BRIGHT_GREEN = tag('fg 10');
export const BRIGHT_MAGENTA = tag('fg 13');
export const BRIGHT_CYAN = tag('fg 14');
/** `colors.SpecHeadline`. */
export const HEADLINE = BRIGHT_MAGENTA + BOLD;
/** `colors.SpecUnimportant`. */
export const UNIMPORTANT = RESET;

/** A step kind as Pulumi's display knows it: ours, plus the kinds only Pulumi's engine makes (seen in its event logs). */
export type DisplayOp = StepOp | 'read-replacement' | 'discard-replaced' | 'remove-pending-replace' | 'import-replacement';

/** `deploy.Color`. */
export function opColor(op: DisplayOp): string {
  switch (op) {
    case 'same':
    case 'remove-pending-replace':
      return UNIMPORTANT;
    case 'create':
    case 'import':
      return GREEN;
    case 'delete':
    case 'discard':
    case 'discard-replaced':
      return RED;
    case 'update':
    case 'refresh':
      return YELLOW;
    case 'replace':
    case 'read-replacement':
    case 'import-replacement':
      return BRIGHT_MAGENTA;
    case 'create-replacement':
      return BRIGHT_GREEN;
    case 'delete-replaced':
      return BRIGHT_RED;
    case 'read':
      return BRIGHT_CYAN;
  }
}

const RAW_PREFIX: Record<DisplayOp, string> = {
  same: '  ',
  create: '+ ',
  delete: '- ',
  update: '~ ',
  replace: '+-',
  'create-replacement': '++',
  'delete-replaced': '--',
  read: '> ',
  'read-replacement': '>>',
  refresh: '~ ',
  discard: '< ',
  'discard-replaced': '<<',
  import: '= ',
  'import-replacement': '=>',
  'remove-pending-replace': '~ ',
};

/** `deploy.RawPrefix`: two characters. */
export function rawPrefix(op: DisplayOp): string {
  return RAW_PREFIX[op];
}

/** `deploy.Prefix(op, true)`: the color, then the two-character prefix. */
export function opPrefix(op: DisplayOp): string {
  return opColor(op) + rawPrefix(op);
}

/** `deploy.PastTense`. */
export function pastTense(op: DisplayOp): string {
  switch (op) {
    case 'read':
      return 'read';
    case 'refresh':
      return 'refreshed';
    case 'discard':
    case 'discard-replaced':
      return 'discarded';
    case 'delete':
    case 'delete-replaced':
      return 'deleted';
    case 'import':
    case 'import-replacement':
      return 'imported';
    default:
      return `${op}d`;
  }
}

/** The ANSI codes of a tag, as Pulumi writes them (`38;5;N` for colors). */
function ansi(command: string): string | undefined {
  if (command === 'reset') return '0';
  if (command === 'bold') return '1';
  if (command === 'underline') return '4';
  const m = /^(fg|bg) (\d+)$/.exec(command);
  return m ? `${m[1] === 'fg' ? 38 : 48};5;${m[2]}` : undefined;
}

/** Pulumi's `Colorize`: tags dropped (`never`), kept (`raw`) or made ANSI codes (`always`). */
export function colorize(text: string, mode: Colorization): string {
  if (mode === 'raw') return text;
  return text.replace(/<\{%([^%]*)%\}>/g, (_all, command: string) => {
    if (mode === 'never') return '';
    const codes = ansi(command);
    return codes ? `\x1b[${codes}m` : '';
  });
}
