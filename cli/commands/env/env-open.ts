/**
 * `stackyard env open` and `env run`, as ESC's CLI (`cmd/esc/cli/env_open.go`, `env_run.go`): open a version (a
 * session of `--lifetime`, default 2h) and print it (secrets revealed: opening is what reveals them), or run a command
 * with its `environmentVariables` and `files` (temporary files, 0600, removed afterwards) and, unless `-i`, every
 * secret replaced by `[secret]` in the command's output.
 */
import { spawn } from 'node:child_process';
import { parsePath, toEscString, type EscEnvironment } from '../../../shared/esc/index.js';
import { propertyDiagnostics } from '../../environments/diagnostics.js';
import { OPEN_FORMATS, checkFormat, prepareEnvironment, renderValue, valueAt } from '../../environments/render.js';
import { redactingWriter } from '../../environments/redact.js';
import { removeTemporaryFiles, temporaryFile } from '../../environments/temporary-files.js';
import { UserError } from '../../output/errors.js';
import type { CommandContext } from '../context.js';
import type { CommandHandler } from '../types.js';
import { escSession, existingFromArgs } from './env-context.js';

/** `--lifetime` as Go's time.ParseDuration reads `2h`, `1h30m`, `15m`, `90s`. */
export function lifetimeMs(text: unknown): number {
  if (text === undefined) return 2 * 3_600_000;
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  const term = /([0-9]*\.?[0-9]+)(ms|h|m|s)/y;
  const value = String(text);
  let total = 0;
  let at = 0;
  while (at < value.length) {
    term.lastIndex = at;
    const match = term.exec(value);
    if (!match) throw new UserError(`invalid argument "${value}" for "-l, --lifetime" flag: time: invalid duration "${value}"`);
    total += Number(match[1]) * units[match[2]!]!;
    at = term.lastIndex;
  }
  if (value === '') throw new UserError('invalid argument "" for "-l, --lifetime" flag: time: invalid duration ""');
  return total;
}

/** Opens the environment, or prints its diagnostics and answers undefined. */
async function openOrReport(ctx: CommandContext, opts: Record<string, unknown>, args: (string | undefined)[]) {
  const session = await escSession(ctx);
  const { ref, rest } = await existingFromArgs(session, opts, args);
  const { environment, diagnostics } = await session.envs.openChecked(ref, ref.version || undefined, lifetimeMs(opts.lifetime));
  if (!environment) {
    process.stderr.write(propertyDiagnostics(diagnostics));
    return undefined;
  }
  return { environment, rest };
}

/** `env open <env>[@version] [path] [-f format] [-l lifetime]`. */
export const envOpen: CommandHandler = async (ctx, args, opts) => {
  const format = (opts.format as string | undefined) ?? 'json';
  const path = args[1] !== undefined && !opts.env ? parsePath(args[1]) : opts.env && args[0] !== undefined ? parsePath(args[0]) : [];
  checkFormat(format, OPEN_FORMATS, path.length > 0);
  const opened = await openOrReport(ctx, opts, args);
  if (!opened) return;
  // As ESC, `dotenv` and `shell` write the files and leave them, so the printed paths can be sourced.
  process.stdout.write(await renderValue(opened.environment, path, checkFormat(format, OPEN_FORMATS, path.length > 0), { showSecrets: true, writeFile: temporaryFile }));
};

/** `${path}` in a command's arguments, replaced by the value there (ESC's ast.Interpolate over the opened value). */
function interpolateArgument(arg: string, env: EscEnvironment, secrets: string[]): string {
  return arg.replace(/\$\$|\$\{([^}]*)\}/g, (whole, path: string | undefined) => {
    if (path === undefined) return '$';
    const value = valueAt({ value: env.properties ?? {} }, parsePath(path));
    if (!value) return '';
    const text = toEscString(value, false);
    if (value.secret) secrets.push(text);
    return text;
  });
}

/**
 * Whether `--` came before any environment name (ESC's ArgsLenAtDash of 0): commander drops the `--`, so the
 * command line is read again, skipping `run`'s flags and their values.
 */
function dashBeforeEnvironment(argv: string[]): boolean {
  const dash = argv.indexOf('--');
  const start = argv.indexOf('run');
  if (dash < 0 || start < 0 || start > dash) return false;
  const takesValue = new Set(['-l', '--lifetime', '--env', '--draft', '-C', '--cwd', '--color']);
  for (let i = start + 1; i < dash; i++) {
    if (takesValue.has(argv[i]!)) i++;
    else if (!argv[i]!.startsWith('-')) return false;
  }
  return true;
}

/** `env run <env> [-i] [-l lifetime] [--] <command> [args…]`. */
export const envRun: CommandHandler = async (ctx, args, opts) => {
  const given = (args.flat() as (string | undefined)[]).filter((a): a is string => a !== undefined);
  // The first `--` ends the flags; one before any environment name means none was given (ESC's ArgsLenAtDash 0).
  if (!opts.env && (given.length === 0 || dashBeforeEnvironment(process.argv))) throw new UserError('no environment specified');
  const opened = await openOrReport(ctx, opts, given);
  if (!opened) return;
  const [command, ...rest] = opened.rest;
  if (command === undefined) throw new UserError('no command specified');
  const projection = await prepareEnvironment(opened.environment, { quote: false, redact: false, writeFile: temporaryFile });
  try {
    const secrets = [...projection.secrets];
    const argv = rest.map((arg) => interpolateArgument(arg, opened.environment, secrets));
    const variables = Object.fromEntries(projection.environ.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
    const interactive = opts.interactive === true;
    const child = spawn(command, argv, { env: { ...process.env, ...variables }, stdio: ['inherit', interactive ? 'inherit' : 'pipe', interactive ? 'inherit' : 'pipe'] });
    if (!interactive) {
      child.stdout!.pipe(redactingWriter(process.stdout, secrets));
      child.stderr!.pipe(redactingWriter(process.stderr, secrets));
    }
    const status = await new Promise<number>((resolve, reject) => {
      child.on('error', (error) => reject(new UserError(`resolving command: ${error.message}`)));
      child.on('close', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
    });
    if (status !== 0) process.exitCode = status;
  } finally {
    await removeTemporaryFiles(projection.paths);
  }
};
