/**
 * `stackyard env init|ls|rm|clone`, as ESC's CLI (`cmd/esc/cli/env_init.go`, `env_ls.go`, `env_rm.go`,
 * `env_clone.go`) and `pulumi env` run them: the same arguments, flags, messages and output.
 */
import { parsePath } from '../../../shared/esc/index.js';
import { yamlDiagnostics, propertyDiagnostics } from '../../environments/diagnostics.js';
import { removeDefinitionValue } from '../../environments/definition.js';
import { formatEnvironmentArg, takeEnvironmentName } from '../../environments/refs.js';
import { UserError } from '../../output/errors.js';
import type { CommandHandler } from '../types.js';
import { escSession, existingFromArgs, readInput, refuseVersion } from './env-context.js';

/** `env init <env> [-f file|-]`: creates the environment, then saves the file's definition, if any. */
export const envInit: CommandHandler = async (ctx, args, opts) => {
  const session = await escSession(ctx);
  const { name } = takeEnvironmentName(opts.env, args);
  const ref = await session.fresh(name);
  if (ref.version !== '') throw new UserError('the init command does not accept versions');
  const file = opts.file as string | undefined;
  const yaml = file ? await readInput(file).catch((e: Error) => { throw new UserError(`reading environment definition: ${e.message}`); }) : '';
  await session.envs.create(ref);
  ctx.out(`Environment created: ${formatEnvironmentArg(ref)}`);
  if (yaml.length === 0) return;
  const diagnostics = await session.envs.update(ref, yaml);
  if (diagnostics.length > 0) {
    process.stderr.write(yamlDiagnostics(`${ref.project}/${ref.name}`, yaml, diagnostics));
    throw new UserError('updating environment definition: too many errors');
  }
};

/** `env ls [-o org] [-p project] [--output json]`: `org/project/env` per line (the caller's own organization left out). */
export const envLs: CommandHandler = async (ctx, _args, opts) => {
  const output = (opts.output as string | undefined) ?? 'text';
  if (output !== 'text' && output !== 'json' && output !== '') throw new UserError(`invalid --output "${output}": must be "text" or "json"`);
  const backend = await ctx.backend();
  const user = (await backend.whoami()).user;
  const org = opts.organization as string | undefined;
  const project = opts.project as string | undefined;
  const listed = (await backend.environments().list(org || undefined).catch((e: Error) => { throw new UserError(`listing environments: ${e.message}`); }))
    .filter((e) => !project || e.project === project)
    .sort((a, b) => (a.org !== b.org ? (a.org < b.org ? -1 : 1) : a.project !== b.project ? (a.project < b.project ? -1 : 1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const ids = listed.map((e) => (e.org === user ? `${e.project}/${e.name}` : `${e.org}/${e.project}/${e.name}`));
  if (output === 'json') ctx.json({ environments: ids });
  else if (ids.length > 0) ctx.out(ids.join('\n'));
};

/** `env rm <env> [path] [--yes]`: the environment (after confirming), or one value of its definition. */
export const envRm: CommandHandler = async (ctx, args, opts) => {
  const session = await escSession(ctx);
  const { ref, rest } = await existingFromArgs(session, opts, args);
  refuseVersion(ref, 'rm');
  if (rest.length === 0) {
    const slug = formatEnvironmentArg(ref);
    await ctx.confirm(opts.yes, 'remove the environment', `This will permanently remove the "${slug}" environment!`, slug);
    await session.envs.delete(ref);
    ctx.out(`Environment "${slug}" has been removed!`);
    return;
  }
  const path = parsePath(rest[0]!);
  const { yaml, etag } = await session.envs.getDefinition(ref, undefined, false);
  const edited = removeDefinitionValue(yaml, path);
  if (edited === undefined) return;
  const diagnostics = await session.envs.update(ref, edited, etag);
  if (diagnostics.length > 0) process.stderr.write(propertyDiagnostics(diagnostics));
};

/** `env clone <org/project/env> [project/]<env> [--preserve-…]`: into the source's project unless one is named. */
export const envClone: CommandHandler = async (ctx, args, opts) => {
  const session = await escSession(ctx);
  const { name, rest } = takeEnvironmentName(opts.env, args);
  const ref = await session.existing(name).catch((error: unknown) => {
    if (error instanceof UserError && error.message.startsWith('ambiguous path')) return { ...require2(name, session.defaultOrg) };
    throw error;
  });
  if (ref.legacy) throw new UserError("referring to an environment name ('env' or 'org/env') without a project is not supported");
  if (ref.version !== '') throw new UserError('the clone command does not accept versions');
  const target = rest[0];
  if (target === undefined) throw new UserError('accepts 2 arg(s), received 1');
  if (opts.preserveEnvTags) throw new UserError('--preserve-env-tags: Stackyard has no environment tags yet', 'Clone without --preserve-env-tags.');
  const slash = target.indexOf('/');
  const destProject = slash < 0 ? undefined : target.slice(0, slash);
  const destName = slash < 0 ? target : target.slice(slash + 1);
  await session.envs
    .clone(ref, {
      ...(destProject ? { project: destProject } : {}),
      name: destName,
      preserveHistory: opts.preserveHistory === true,
      preserveAccess: opts.preserveAccess === true,
      preserveRevisionTags: opts.preserveRevTags === true,
    })
    .catch((e: Error) => {
      throw Object.assign(e, { message: `cloning environment: ${e.message}` });
    });
  ctx.out(`Environment ${ref.org}/${ref.project}/${ref.name} cloned into ${ref.org}/${destProject ?? ref.project}/${destName}.`);
};

/** The `<project>/<env>` reading of a two-part name, which clone keeps when both readings exist. */
function require2(text: string, defaultOrg: string) {
  const [project, name] = text.split('/') as [string, string];
  return { org: defaultOrg, project, name, version: '', legacy: false, ambiguous: true };
}
