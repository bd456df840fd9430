/** `stackyard migrate --from <source>`: stacks of a Pulumi DIY backend, a Pulumi-compatible service or another Stackyard backend. */
import { promises as fs } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { openBackend } from '../backend/open-backend.js';
import { localDataDir, readCredentials } from '../credentials.js';
import { BackendSource } from '../migrate/backend-source.js';
import { openDiyBucket } from '../migrate/diy-bucket.js';
import { DiySource } from '../migrate/diy-source.js';
import { planMigration, runMigration, type MigrationOptions, type StackPlan } from '../migrate/migrator.js';
import type { MigrationSource } from '../migrate/types.js';
import { UserError } from '../output/errors.js';
import { findProject, type Project } from '../project/project.js';
import type { CommandContext } from './context.js';
import { table } from './format.js';
import type { CommandHandler } from './types.js';

const exists = (path: string) => fs.stat(path).then(() => true, () => false);

async function stackyardFolder(ctx: CommandContext, dir: string, what: string): Promise<MigrationSource> {
  if (!(await exists(join(dir, 'layout.json')))) {
    throw new UserError(`${what} is neither a Pulumi DIY backend (no .pulumi folder) nor a stackyard data folder (no layout.json)`);
  }
  return new BackendSource(await openBackend(pathToFileURL(dir).href, undefined), ctx.env);
}

/** The token for a service source: --from-token, STACKYARD_FROM_TOKEN, a `stackyard login` to it, PULUMI_ACCESS_TOKEN. */
async function sourceToken(ctx: CommandContext, url: string, flag: unknown): Promise<string | undefined> {
  if (typeof flag === 'string' && flag !== '') return flag;
  if (ctx.env.STACKYARD_FROM_TOKEN) return ctx.env.STACKYARD_FROM_TOKEN;
  const stored = (await readCredentials(ctx.env)).accessTokens[url];
  return stored ?? (ctx.env.PULUMI_ACCESS_TOKEN || undefined);
}

async function openSource(ctx: CommandContext, opts: Record<string, unknown>, fallbackProject?: string): Promise<MigrationSource> {
  if (opts.fromLocal === true) {
    if (typeof opts.from === 'string') throw new UserError('give either --from or --from-local, not both');
    return stackyardFolder(ctx, localDataDir(ctx.env), `the --local data folder (${localDataDir(ctx.env)})`);
  }
  const from = opts.from;
  if (typeof from !== 'string' || from === '') {
    throw new UserError(
      'missing --from <source>',
      'Give a Pulumi DIY backend (file://<dir>, s3://<bucket>[/<prefix>]), a service URL (https://api.pulumi.com), or --from-local.',
    );
  }
  if (/^https?:\/\//.test(from)) {
    const url = from.replace(/\/+$/, '');
    const token = await sourceToken(ctx, url, opts.fromToken);
    if (!token) throw new UserError(`no access token for ${url}`, 'Pass --from-token <token> (or set STACKYARD_FROM_TOKEN).');
    return new BackendSource(await openBackend(url, token), ctx.env);
  }
  const url = from.includes('://') ? from : pathToFileURL(resolve(ctx.cwd, from)).href;
  const bucket = await openDiyBucket(url, ctx.env, ctx.cwd);
  if (!bucket) throw new UserError(`'${from}' is not a source stackyard can migrate from`, 'Use file://<dir>, s3://<bucket>[/<prefix>], https://<service> or --from-local.');
  const diy = new DiySource(bucket, ctx.env, fallbackProject);
  if (url.startsWith('s3://') || (await diy.exists())) return diy;
  await diy.close();
  return stackyardFolder(ctx, fileURLToPath(bucket.url), from);
}

/** The projects whose stack files are migrated: the current one and each --project-dir. */
async function projectsByName(ctx: CommandContext, dirs: string[]): Promise<Map<string, Project>> {
  const projects = new Map<string, Project>();
  const current = await ctx.project();
  if (current) projects.set(current.name, current);
  for (const dir of dirs) {
    const project = await findProject(resolve(ctx.cwd, dir));
    if (!project) throw new UserError(`no Pulumi.yaml in ${dir} or above`, 'Give --project-dir the folder of a Pulumi project.');
    projects.set(project.name, project);
  }
  return projects;
}

function planTable(plans: StackPlan[]): string {
  const rows = plans.map((plan) => [
    plan.source.name,
    plan.target ? `${plan.target.org}/${plan.target.project}/${plan.target.stack}` : '-',
    plan.status === 'resume' ? `resume at version ${plan.targetVersion}` : plan.status === 'migrated' ? 'already migrated' : plan.status,
    String(plan.resources),
    String(plan.history),
    plan.secretsProvider ? `${plan.stateSecrets} (${plan.secretsProvider})` : String(plan.stateSecrets),
    plan.configFile ? `${plan.configSecrets} in ${plan.configFile}` : '-',
  ]);
  return table(['SOURCE STACK', 'TARGET', 'STATUS', 'RESOURCES', 'HISTORY', 'STATE SECRETS', 'CONFIG SECRETS'], rows);
}

export const migrate: CommandHandler = async (ctx, _args, opts) => {
  const target = await ctx.backend();
  const project = await ctx.project();
  const source = await openSource(ctx, opts, project?.name);
  try {
    if (source.id.replace(/\/+$/, '') === target.url.replace(/\/+$/, '')) {
      throw new UserError('the source is the backend you are logged in to', 'Log in to the backend to migrate into, then run migrate again.');
    }
    const options: MigrationOptions = {
      source,
      target,
      org: typeof opts.org === 'string' ? opts.org : await target.defaultOrg(),
      patterns: (opts.stack as string[] | undefined) ?? [],
      projects: await projectsByName(ctx, (opts.projectDir as string[] | undefined) ?? []),
      progress: (line) => ctx.note(line),
    };
    ctx.note(`Reading ${source.id} …`);
    const plans = await planMigration(options);
    if (plans.length === 0) {
      ctx.out(`No stacks in ${source.id}${options.patterns.length ? ` match ${options.patterns.join(', ')}` : ''}.`);
      return;
    }
    const problems = plans.filter((p) => p.reason).map((p) => `  ${p.source.name}: ${p.reason}`);
    if (opts.dryRun === true) {
      ctx.out(`Migration plan from ${source.id} to ${target.url} (dry run: nothing was changed):\n${planTable(plans)}`);
      if (problems.length === 0) return;
      ctx.out(`Conflicts and errors:\n${problems.join('\n')}`);
      // the run this plan previews would fail for these stacks, so the plan fails too (a script can stop on it)
      throw new UserError(
        `${problems.length} stack(s) of the plan would not be migrated (listed above)`,
        'Fix each cause and run the dry run again; a plan without conflicts or errors exits 0.',
      );
    }
    const result = await runMigration(options, plans);
    ctx.out(
      `Migrated ${result.migrated.length} stack(s) from ${source.id}; ${result.skipped.length} already migrated (skipped); ` +
        `${result.failed.length} failed.`,
    );
    if (result.failed.length > 0) {
      throw new UserError(
        `${result.failed.length} stack(s) were not migrated:\n${result.failed.map((f) => `  ${f.name}: ${f.error}`).join('\n')}`,
        'Fix the cause and run the same command again: migrated stacks are skipped, interrupted ones resume.',
      );
    }
  } finally {
    await source.close();
  }
};
