/** `config`, `config get`, `config set` and `config rm` on `Pulumi.<stack>.yaml`, secrets under the stack's key. */
import { isNotFound } from '../backend/backend.js';
import { UserError } from '../output/errors.js';
import { missingStackError } from './missing-stack.js';
import { decryptConfig, effectiveConfig } from '../project/config-values.js';
import type { Project } from '../project/project.js';
import { loadStackConfigFile, remoteConfigRefusal } from '../project/remote-config.js';
import {
  collectCiphertexts,
  isSecureValue,
  mapSecureValues,
  parseConfigKey,
  typedPathValue,
  type StackConfigFile,
  type ConfigKey,
} from '../project/stack-config.js';
import type { CommandContext, ResolvedStack } from './context.js';
import { table } from './format.js';
import { environmentOnly, environmentVariablesTable, openTargetEnvironments, shownValue } from './config-open.js';
import { prettyKey } from './history-config.js';
import type { CommandHandler } from './types.js';
import type { ConfigValue } from '../engine/config/program-config.js';

/** A stack of the current project, which exists, with its config file. */
export interface ConfigTarget extends ResolvedStack {
  project: Project;
  file: StackConfigFile;
  fileName: string;
}

/** The stack (which must exist) of the current project, and its config file. */
export async function stackConfigTarget(ctx: CommandContext, project: Project, resolved: ResolvedStack): Promise<ConfigTarget> {
  const { backend, ref } = resolved;
  const details = await backend.getStack(ref).catch(async (error: unknown) => {
    if (isNotFound(error)) {
      throw await missingStackError(backend, ref, await ctx.displayName(ref), `Create it with \`stackyard stack init ${ref.stack}\`.`);
    }
    throw error;
  });
  const file = await loadStackConfigFile({ project, stack: ref.stack, configEnvironment: details.configEnvironment, warn: (message) => ctx.warn(message) });
  return { ...resolved, project, file, fileName: `Pulumi.${ref.stack}.yaml` };
}

/** The project, its stack (`--stack` or the selected one, which must exist) and the stack's config file. */
export async function configTarget(ctx: CommandContext, opts: Record<string, unknown>): Promise<ConfigTarget> {
  const project = await ctx.requireProject();
  return stackConfigTarget(ctx, project, await ctx.resolveStack(opts.stack as string | undefined));
}

export { prettyKey } from './history-config.js';

/** Replaces secrets by their plaintext, or by `[secret]` when no plaintexts are given. */
function reveal(value: unknown, plaintexts: Map<string, string> | undefined): unknown {
  return mapSecureValues(value, (c) => (plaintexts ? plaintexts.get(c) : '[secret]'));
}

const text = (value: unknown) => (typeof value === 'string' ? value : value !== null && typeof value === 'object' ? JSON.stringify(value) : String(value));

export const configList: CommandHandler = async (ctx, args, opts) => {
  if (opts.version !== undefined) return (await import('./config-version.js')).configAtVersion(ctx, args, opts);
  await listConfig(ctx, await configTarget(ctx, opts), opts);
};

/** Prints a stack's configuration as `config` does (`--json`, `--show-secrets`, `--open`), from the target's file as it is in memory. */
export async function listConfig(ctx: CommandContext, target: ConfigTarget, opts: Record<string, unknown>): Promise<void> {
  const { backend, ref, project, file, fileName } = target;
  const entries = effectiveConfig(project, file);
  const showSecrets = opts.showSecrets === true;
  const plaintexts = showSecrets ? await decryptConfig(backend, ref, entries, fileName) : undefined;
  // As Pulumi: the environments are opened with --open, or by default when secrets are shown; else only checked.
  const open = (opts.open ?? showSecrets) === true;
  const opened = await openTargetEnvironments(target, open);
  const fromEnvironments = Object.entries(opened ? environmentOnly(opened, new Set(entries.map(([key]) => key))) : {});
  const keys = [...entries.map(([key]) => key), ...fromEnvironments.map(([key]) => key)].sort();
  if (opts.json === true) {
    const out: Record<string, { value?: string; objectValue?: unknown; secret: boolean }> = {};
    for (const [key, value] of fromEnvironments) {
      const plain = value.object ? JSON.parse(value.value) : value.value;
      out[key] = value.secret && !showSecrets ? { secret: true } : { value: value.value, ...(value.object ? { objectValue: plain } : {}), secret: value.secret };
    }
    for (const [key, value] of entries) {
      const secret = collectCiphertexts(value).length > 0;
      // Key order as Pulumi's struct: value, objectValue, secret.
      const entry: { value?: string; objectValue?: unknown; secret: boolean } = {} as { secret: boolean };
      if (!secret || showSecrets) {
        const plain = reveal(value, plaintexts);
        entry.value = text(plain);
        if (plain !== null && typeof plain === 'object') entry.objectValue = plain;
      }
      entry.secret = secret;
      out[key] = entry;
    }
    ctx.json(Object.fromEntries(keys.map((key) => [key, out[key]])));
    return;
  }
  const rows = new Map<string, string>([
    ...entries.map(([key, value]) => [key, text(reveal(value, plaintexts))] as const),
    ...fromEnvironments.map(([key, value]) => [key, shownValue(value, showSecrets)] as const),
  ]);
  ctx.out(table(['KEY', 'VALUE'], keys.map((key) => [prettyKey(key, project), rows.get(key)!])) + (opened ? await environmentVariablesTable(opened, showSecrets, open) : ''));
}

export const configGet: CommandHandler = async (ctx, args, opts) => {
  const target = await configTarget(ctx, opts);
  const { backend, ref, project, file, fileName } = target;
  const key = parseConfigKey(args[0]!, project.name, opts.path === true);
  const top = Object.fromEntries(effectiveConfig(project, file))[key.key];
  // As Pulumi (`--open` defaults to true here): a key the stack does not set comes from its environments.
  if (top === undefined && opts.open !== false) {
    const fromEnvironment = (await openTargetEnvironments(target))?.config[key.key];
    if (fromEnvironment) return printEnvironmentValue(ctx, fromEnvironment, key.path, opts.json === true);
  }
  let value: unknown = top;
  for (const segment of key.path) {
    value = value !== null && typeof value === 'object' && !isSecureValue(value) ? (value as Record<string | number, unknown>)[segment] : undefined;
  }
  if (value === undefined) {
    throw new UserError(
      `configuration key '${args[0]}' not found for stack '${await ctx.displayName(ref)}'`,
      `Set it with \`stackyard config set ${args[0]} <value>\`.`,
    );
  }
  const secret = collectCiphertexts(value).length > 0;
  const plaintexts = secret ? await decryptConfig(backend, ref, [[key.key, value]], fileName) : undefined;
  const plain = reveal(value, plaintexts);
  if (opts.json === true) {
    return ctx.json({ value: text(plain), ...(plain !== null && typeof plain === 'object' ? { objectValue: plain } : {}), secret });
  }
  ctx.out(text(plain));
};

/** A value from the stack's environments, as `config get` prints one (decrypted, marked secret in JSON). */
function printEnvironmentValue(ctx: CommandContext, found: ConfigValue, path: (string | number)[], json: boolean): void {
  let value: unknown = found.object ? JSON.parse(found.value) : found.value;
  for (const segment of path) value = value !== null && typeof value === 'object' ? (value as Record<string | number, unknown>)[segment] : undefined;
  if (value === undefined) throw new UserError(`configuration key not found at path ${path.join('.')}`);
  if (json) return ctx.json({ value: text(value), ...(value !== null && typeof value === 'object' ? { objectValue: value } : {}), secret: found.secret });
  ctx.out(text(value));
}

async function readValue(ctx: CommandContext, given: string | undefined, secret: boolean): Promise<string> {
  if (given !== undefined) return given;
  if (!process.stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  }
  if (!ctx.interactive) throw new UserError('config value must be specified in non-interactive mode', 'Pass it: `stackyard config set <key> <value>`.');
  return ctx.promptValue('value', secret);
}

function typedValue(value: string, type: string): unknown {
  switch (type) {
    case 'string':
      return value;
    case 'int':
      if (!/^-?\d+$/.test(value)) throw new UserError(`'${value}' is not an int`, 'Pass a whole number, or another --type.');
      return Number(value);
    case 'float':
      if (value.trim() === '' || !Number.isFinite(Number(value))) throw new UserError(`'${value}' is not a float`, 'Pass a number, or another --type.');
      return Number(value);
    case 'bool':
      if (value !== 'true' && value !== 'false') throw new UserError(`'${value}' is not a bool`, 'Pass true or false, or another --type.');
      return value === 'true';
    default:
      throw new UserError(`invalid type '${type}'`, 'Use one of string, int, bool or float.');
  }
}

export const configSet: CommandHandler = async (ctx, args, opts) => {
  const chosen = ['secret', 'plaintext', 'type'].filter((flag) => opts[flag] !== undefined && opts[flag] !== false);
  if (chosen.length > 1) throw new UserError(`--${chosen.join(' and --')} cannot be used together`, 'Pick one of --secret, --plaintext and --type.');
  const { backend, ref, project, file } = await configTarget(ctx, opts);
  const usePath = opts.path === true;
  const key: ConfigKey = parseConfigKey(args[0]!, project.name, usePath);
  const raw = await readValue(ctx, args[1], opts.secret === true);
  if (file.remoteEnvironment !== undefined) {
    const example = opts.secret === true ? '--secret <value>' : raw;
    throw remoteConfigRefusal('config set', `\`stackyard env set ${file.remoteEnvironment} pulumiConfig.${key.key} ${example}\``);
  }
  let value: unknown;
  if (opts.secret === true) {
    const [ciphertext] = await backend.encrypt(ref, [raw]);
    value = { secure: ciphertext };
  } else if (typeof opts.type === 'string') {
    value = typedValue(raw, opts.type);
  } else {
    // Pulumi types a value set inside an object only; a top-level value stays a string, with --path or without.
    value = key.path.length > 0 ? typedPathValue(raw) : raw;
  }
  file.set(key, value);
  await file.save();
};

export const configRm: CommandHandler = async (ctx, args, opts) => {
  const { project, file, ref } = await configTarget(ctx, opts);
  const key = parseConfigKey(args[0]!, project.name, opts.path === true);
  if (file.remoteEnvironment !== undefined) {
    throw remoteConfigRefusal('config rm', `\`stackyard env rm ${file.remoteEnvironment} pulumiConfig.${key.key}\` to update config environment`);
  }
  if (file.remove(key)) await file.save();
  else ctx.warn(`configuration key '${args[0]}' is not set for stack '${await ctx.displayName(ref)}'; nothing to remove`);
};
