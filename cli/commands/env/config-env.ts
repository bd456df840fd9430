/**
 * `stackyard config env add|rm|ls`: the ESC environments a stack imports (`environment:` in `Pulumi.<stack>.yaml`),
 * as `pulumi config env` edits them (pkg/cmd/pulumi/config/config_env*.go): `add` appends to the import list, `rm`
 * removes the last occurrence of a name (none: nothing changes), `ls` lists them; after an edit the stack's
 * configuration is listed (as `config` lists it, secrets shown with `--show-secrets`), then saved on `yes` (or with
 * `--yes`).
 */
import { UserError } from '../../output/errors.js';
import { configTarget, listConfig } from '../config.js';
import type { CommandContext } from '../context.js';
import { table } from '../format.js';
import type { CommandHandler } from '../types.js';

function environmentsTable(ctx: CommandContext, imports: string[]): void {
  if (imports.length === 0) {
    ctx.out('This stack configuration has no environments listed. Try adding one with `stackyard config env add <projectName>/<envName>`.\n');
    return;
  }
  ctx.out(table(['ENVIRONMENTS'], imports.map((name) => [name])));
}

function wantsJson(opts: Record<string, unknown>): boolean {
  const output = opts.output as string | undefined;
  if (output !== undefined && output !== 'json' && output !== 'default') {
    throw new UserError(`output "${output}" not supported, valid values are: default or json`);
  }
  return opts.json === true || output === 'json';
}

/** `config env ls [-j|--output json]`. */
export const configEnvLs: CommandHandler = async (ctx, _args, opts) => {
  const json = wantsJson(opts);
  const { file } = await configTarget(ctx, opts);
  const imports = file.environments();
  if (json) ctx.out(`${JSON.stringify(imports, null, 4)}\n`);
  else environmentsTable(ctx, imports);
};

async function editEnvironments(ctx: CommandContext, opts: Record<string, unknown>, edit: (imports: string[]) => string[]): Promise<void> {
  if (!ctx.skipConfirmations(opts.yes) && !ctx.interactive) {
    throw new UserError('--yes must be passed in to proceed when running in non-interactive mode', 'Re-run with --yes to save the stack configuration.');
  }
  const target = await configTarget(ctx, opts);
  target.file.setEnvironments(edit(target.file.environments()));
  await listConfig(ctx, target, { showSecrets: opts.showSecrets, open: false });
  await ctx.confirm(opts.yes, 'save the stack configuration', '\nSave?');
  await target.file.save();
}

/** `config env add <environment-name...> [--yes]`. */
export const configEnvAdd: CommandHandler = async (ctx, args, opts) => {
  await editEnvironments(ctx, opts, (imports) => [...imports, ...(args as (string | string[])[]).flat()]);
};

/** `config env rm <environment-name> [--yes]`: the last occurrence goes, as in Pulumi. */
export const configEnvRm: CommandHandler = async (ctx, args, opts) => {
  const name = args[0] as string;
  await editEnvironments(ctx, opts, (imports) => {
    const at = imports.lastIndexOf(name);
    return at < 0 ? imports : [...imports.slice(0, at), ...imports.slice(at + 1)];
  });
};
