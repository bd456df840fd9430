/** `stack` and its subcommands. */
import { promises as fs } from 'node:fs';
import { formatStackRef, parseStackRef, type StackRef } from '../../shared/core/names.js';
import { isNotFound, secretsProviderFor, type Backend, type UntypedDeployment } from '../backend/backend.js';
import { decryptStateSecrets, openForeignSecrets, resourceStates, revealSecrets, sealSecrets, SECRET_SIG, SIG_KEY } from '../backend/deployment-secrets.js';
import { ServiceDecrypters } from '../secrets/service-decrypter.js';
import { UserError } from '../output/errors.js';
import { copyStackConfig } from '../project/config-copy.js';
import { stackConfigPath, type Project } from '../project/project.js';
import { requireKnownRuntime } from '../project/runtimes.js';
import { selectedStack, selectStack } from '../project/workspace.js';
import type { CommandContext } from './context.js';
import { formatTime, relativeTime, table } from './format.js';
import { missingStackError } from './missing-stack.js';
import type { CommandHandler } from './types.js';

const STACK_TYPE = 'pulumi:pulumi:Stack';
const STILL_HAS_RESOURCES = 'Bad Request: Stack still contains resources.';

/** The stack named by the argument or `--stack` (not both), else the selected one. */
function stackName(args: (string | undefined)[], opts: Record<string, unknown>): string | undefined {
  const positional = args[0];
  if (positional && typeof opts.stack === 'string' && opts.stack !== positional) {
    throw new UserError('only one of --stack or the stack name argument may be given, not both');
  }
  return positional ?? (opts.stack as string | undefined);
}

/** The stack must exist; a missing one is named with the command that creates it. */
export async function requireExisting(ctx: CommandContext, backend: Backend, ref: StackRef) {
  try {
    return await backend.getStack(ref);
  } catch (error) {
    if (isNotFound(error)) {
      throw await missingStackError(
        backend,
        ref,
        await ctx.displayName(ref),
        `Create it with \`stackyard stack init ${ref.stack}\`, or list stacks with \`stackyard stack ls\`.`,
      );
    }
    throw error;
  }
}

/**
 * The stack's resources as Pulumi's `stack` lists them: the snapshot's, without the pending operations an interrupted
 * run left (a create in flight is not a resource yet; `refresh` or `state repair` settles it).
 */
function snapshotResources(deployment: UntypedDeployment): Record<string, unknown>[] {
  return ((deployment.deployment as { resources?: Record<string, unknown>[] }).resources ?? []).filter((r) => r !== null && typeof r === 'object');
}

/** The root stack resource's outputs with secrets decrypted (`reveal`) or shown as `[secret]`. */
async function stackOutputs(backend: Backend, ref: StackRef, deployment: UntypedDeployment, reveal: boolean): Promise<Record<string, unknown>> {
  const root = snapshotResources(deployment).find((r) => r.type === STACK_TYPE && !r.delete);
  const outputs = (root?.outputs ?? {}) as Record<string, unknown>;
  const ciphertexts: string[] = [];
  const collect = (v: unknown): void => {
    if (v !== null && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (o[SIG_KEY] === SECRET_SIG) {
        if (typeof o.ciphertext === 'string') ciphertexts.push(o.ciphertext);
      } else for (const x of Object.values(o)) collect(x);
    }
  };
  collect(outputs);
  const plaintexts = reveal && ciphertexts.length > 0 ? await decryptStateSecrets(backend, ref, ciphertexts) : [];
  let next = 0;
  const show = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(show);
    if (v !== null && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (o[SIG_KEY] === SECRET_SIG) {
        if (!reveal) return '[secret]';
        if (typeof o.plaintext === 'string') return JSON.parse(o.plaintext);
        return JSON.parse(plaintexts[next++]!);
      }
      return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, show(x)]));
    }
    return v;
  };
  return show(outputs) as Record<string, unknown>;
}

const outputText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

export const stackSummary: CommandHandler = async (ctx, _args, opts) => {
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  const details = await requireExisting(ctx, backend, ref);
  const name = await ctx.displayName(ref);
  if (opts.showName === true) return ctx.out(ref.stack);
  const deployment = await backend.exportDeployment(ref);
  const resources = snapshotResources(deployment).filter((r) => !r.delete);
  const lines = [`Current stack is ${name}:`, `    Owner: ${ref.org}`];
  if (details.activeUpdate) lines.push('    Update in progress');
  const [last] = await backend.history(ref, 1, 1);
  lines.push(last?.endTime ? `    Last updated: ${relativeTime(last.endTime * 1000)} (${formatTime(last.endTime * 1000)})` : '    Last update: never');
  lines.push('', `Current stack resources (${resources.length}):`);
  if (resources.length === 0) lines.push('    No resources currently in this stack');
  else {
    const rows = resources.map((r) => {
      const urn = String(r.urn);
      const row = [String(r.type), urn.slice(urn.lastIndexOf('::') + 2)];
      if (opts.showIds === true) row.push(String(r.id ?? ''));
      return row;
    });
    lines.push(table(opts.showIds === true ? ['TYPE', 'NAME', 'ID'] : ['TYPE', 'NAME'], rows, '    '));
    if (opts.showUrns === true) for (const r of resources) lines.push(`        URN: ${String(r.urn)}`);
  }
  const outputs = await stackOutputs(backend, ref, deployment, opts.showSecrets === true);
  const keys = Object.keys(outputs).sort();
  lines.push('', `Current stack outputs (${keys.length}):`);
  if (keys.length === 0) lines.push('    No output values currently in this stack');
  else lines.push(table(['OUTPUT', 'VALUE'], keys.map((k) => [k, outputText(outputs[k])]), '    '));
  ctx.out(lines.join('\n'));
};

/** The tags `pulumi stack init` gives a new stack from the project. */
export function projectTags(project: Project): Record<string, string> {
  const tags: Record<string, string> = { 'pulumi:project': project.name, 'pulumi:runtime': project.runtime ?? 'nodejs' };
  if (project.description) tags['pulumi:description'] = project.description.slice(0, 256);
  return tags;
}

export const stackInit: CommandHandler = async (ctx, args, opts) => {
  const project = await ctx.requireProject();
  requireKnownRuntime(project.runtime ?? 'nodejs', project.file, ctx.env, project.dir);
  let name = stackName(args, opts);
  if (!name) {
    if (!ctx.interactive) throw new UserError('missing stack name', 'Pass it: `stackyard stack init <name>`.');
    name = (await ctx.promptValue('Please enter your desired stack name', false)).trim();
  }
  const backend = await ctx.backend();
  const ref = await ctx.parseStack(name);
  let copyFrom: StackRef | undefined;
  if (typeof opts.copyConfigFrom === 'string') {
    copyFrom = await ctx.parseStack(opts.copyConfigFrom);
    await requireExisting(ctx, backend, copyFrom);
  }
  // As Pulumi: the environment is `<project>/<stack>`, in the stack's organization.
  const configEnvironment = opts.remoteConfig === true ? `${ref.project}/${ref.stack}` : undefined;
  if (configEnvironment !== undefined && copyFrom) {
    throw new UserError('--copy-config-from cannot be used with --remote-config', `Set the values in the environment instead: \`stackyard env set ${configEnvironment} pulumiConfig.<key> <value>\`.`);
  }
  await backend.createStack(ref, projectTags(project), opts.teams as string[] | undefined, configEnvironment);
  if (copyFrom) await copyStackConfig(backend, project, copyFrom, ref);
  if (opts.select !== false) await selectStack(project, backend.url, formatStackRef(ref), ctx.env);
  ctx.out(`Created stack '${await ctx.displayName(ref)}'`);
  if (configEnvironment !== undefined) ctx.out(`Created environment ${configEnvironment} for stack configuration`);
};

export const stackSelect: CommandHandler = async (ctx, args, opts) => {
  const project = await ctx.requireProject();
  const name = stackName(args, opts);
  if (!name) throw new UserError('missing stack name', 'Pass it: `stackyard stack select <name>` (see `stackyard stack ls`).');
  const backend = await ctx.backend();
  const ref = await ctx.parseStack(name);
  try {
    await backend.getStack(ref);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    if (opts.create !== true) {
      throw new UserError(`no stack named '${await ctx.displayName(ref)}' found`, `Create it with \`stackyard stack init ${name}\`, or pass --create.`);
    }
    await backend.createStack(ref, projectTags(project));
    ctx.out(`Created stack '${await ctx.displayName(ref)}'`);
  }
  await selectStack(project, backend.url, formatStackRef(ref), ctx.env);
};

export const stackUnselect: CommandHandler = async (ctx) => {
  const project = await ctx.requireProject();
  const backend = await ctx.backend();
  await selectStack(project, backend.url, undefined, ctx.env);
  ctx.out('Stack was unselected');
};

export const stackRm: CommandHandler = async (ctx, args, opts) => {
  const { backend, ref, project } = await ctx.resolveStack(stackName(args, opts));
  await requireExisting(ctx, backend, ref);
  const name = await ctx.displayName(ref);
  await ctx.confirm(opts.yes, `remove stack ${name}`, `This will permanently remove the '${name}' stack!`, name);
  try {
    await backend.removeStack(ref, opts.force === true);
  } catch (error) {
    if (error instanceof Error && error.message === STILL_HAS_RESOURCES) {
      throw new UserError(
        `'${name}' still has resources; removal rejected`,
        `Run \`stackyard destroy\` to delete the resources first, or \`stackyard stack rm --force\` to remove the stack and leave them in place.`,
      );
    }
    throw error;
  }
  if (project && project.name === ref.project) {
    if (opts.preserveConfig !== true) {
      await fs.rm(stackConfigPath(project, ref.stack), { force: true });
    }
    if ((await selectedStack(project, backend.url, ctx.env)) === formatStackRef(ref)) await selectStack(project, backend.url, undefined, ctx.env);
  }
  ctx.out(`Stack '${name}' has been removed!`);
};

export const stackRename: CommandHandler = async (ctx, args, opts) => {
  const newName = args[0]!;
  const { backend, ref, project } = await ctx.resolveStack(opts.stack as string | undefined);
  await requireExisting(ctx, backend, ref);
  const target = parseStackRef(newName, { org: ref.org, project: ref.project });
  if (target.org !== ref.org) {
    throw new UserError(
      `cannot move stack '${formatStackRef(ref)}' to organization '${target.org}'`,
      'A rename keeps the organization: give the new name as `name`, or as `org/project/name` with the same organization.',
    );
  }
  const oldName = await ctx.displayName(ref);
  await backend.renameStack(ref, { project: target.project, stack: target.stack });
  if (project && project.name === ref.project) {
    const from = stackConfigPath(project, ref.stack);
    const exists = await fs.stat(from).then(() => true, () => false);
    if (exists && target.project === project.name) await fs.rename(from, stackConfigPath(project, target.stack));
    if (target.project === project.name) await selectStack(project, backend.url, formatStackRef(target), ctx.env);
  }
  ctx.out(`Renamed ${oldName} to ${await ctx.displayName(target)}`);
};

export const stackOutput: CommandHandler = async (ctx, args, opts) => {
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  await requireExisting(ctx, backend, ref);
  const outputs = await stackOutputs(backend, ref, await backend.exportDeployment(ref), opts.showSecrets === true);
  const property = args[0];
  if (property !== undefined) {
    if (!(property in outputs)) throw new UserError(`current stack does not have output property '${property}'`, 'List the outputs with `stackyard stack output`.');
    if (opts.json === true) ctx.json(outputs[property]);
    else ctx.out(outputText(outputs[property]));
    return;
  }
  if (opts.json === true) return ctx.json(outputs);
  const keys = Object.keys(outputs).sort();
  if (keys.length === 0) return ctx.out('No output values currently in this stack');
  ctx.out(`Current stack outputs (${keys.length}):\n${table(['OUTPUT', 'VALUE'], keys.map((k) => [k, outputText(outputs[k])]), '    ')}`);
};

export const stackExport: CommandHandler = async (ctx, _args, opts) => {
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  await requireExisting(ctx, backend, ref);
  const deployment = await backend.exportDeployment(ref, opts.version as number | undefined);
  if (opts.showSecrets === true) await revealSecrets(backend, ref, deployment);
  const text = `${JSON.stringify(deployment, null, 4)}\n`;
  if (typeof opts.file === 'string') await fs.writeFile(opts.file, text);
  else process.stdout.write(text);
};

async function readInput(file: string | undefined): Promise<string> {
  if (file !== undefined) {
    return fs.readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new UserError(`could not open file '${file}': ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
    });
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function urnParts(urn: unknown): { stack: string; project: string; type: string } | undefined {
  if (typeof urn !== 'string' || !urn.startsWith('urn:pulumi:')) return undefined;
  const [stack, project, type] = urn.slice('urn:pulumi:'.length).split('::');
  return stack !== undefined && project !== undefined && type !== undefined ? { stack, project, type } : undefined;
}

export const stackImport: CommandHandler = async (ctx, _args, opts) => {
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  await requireExisting(ctx, backend, ref);
  const force = opts.force === true;
  const text = await readInput(opts.file as string | undefined);
  let deployment: UntypedDeployment;
  try {
    deployment = JSON.parse(text) as UntypedDeployment;
  } catch (error) {
    throw new UserError(`could not read the deployment: ${(error as Error).message}`, 'Give a file written by `stackyard stack export` (or `pulumi stack export`).');
  }
  const shaped =
    deployment !== null &&
    typeof deployment === 'object' &&
    typeof deployment.version === 'number' &&
    typeof deployment.deployment === 'object' &&
    deployment.deployment !== null;
  if (!shaped) {
    throw new UserError('the file is not a deployment: expected {"version": 3, "deployment": {…}}', 'Give a file written by `stackyard stack export`.');
  }

  const problems: string[] = [];
  const foreign = new Map<string, number>();
  for (const state of resourceStates(deployment)) {
    const parts = urnParts(state.urn);
    if (!parts || (parts.stack === ref.stack && parts.project === ref.project)) continue;
    const source = `${parts.project}/${parts.stack}`;
    foreign.set(source, (foreign.get(source) ?? 0) + 1);
  }
  for (const [source, count] of foreign) {
    const message = `${count} resource(s) in the file are from a different stack (${source} != ${ref.project}/${ref.stack})`;
    if (force) ctx.warn(message);
    else problems.push(message);
  }
  const { verifyIntegrity } = await import('../engine/state/deployment.js');
  try {
    verifyIntegrity((deployment.deployment.resources ?? []) as Parameters<typeof verifyIntegrity>[0]);
  } catch (error) {
    const message = `state file contains errors: ${(error as Error).message}`;
    if (!force) problems.push(message);
    else {
      ctx.warn(message);
      // Recorded the way the Pulumi CLI records a snapshot it knows is broken, so the service keeps it as it is and
      // later commands can see why (`stackyard state repair` / `pulumi state repair` fix it).
      const metadata = (deployment.deployment.metadata ?? {}) as Record<string, unknown>;
      deployment.deployment.metadata = {
        ...metadata,
        integrity_error: { version: String(deployment.version), command: 'stackyard stack import --force', error: (error as Error).message },
      };
    }
  }
  if (problems.length > 0) {
    throw new UserError(problems.join('; '), 'Importing this file could be dangerous; rerun with --force to proceed anyway.');
  }
  const pending = (deployment.deployment.pending_operations ?? []) as { type?: string; resource?: { urn?: string } }[];
  for (const op of pending) ctx.warn(`removing pending operation '${String(op.type)}' on '${String(op.resource?.urn)}' from snapshot`);
  delete deployment.deployment.pending_operations;

  const services = new ServiceDecrypters(ctx.env, backend);
  try {
    const source = await openForeignSecrets(backend, ref, deployment, { env: ctx.env, serviceDecrypter: services.open });
    if (source) ctx.note(`Secrets re-encrypted from the ${source} secrets provider with this stack's key.`);
  } finally {
    await services.close();
  }
  await sealSecrets(backend, ref, deployment, secretsProviderFor(backend, ref));
  await backend.importDeployment(ref, deployment);
  ctx.out('Import complete.');
};

export const tagGet: CommandHandler = async (ctx, args, opts) => {
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  const { tags } = await requireExisting(ctx, backend, ref);
  const name = args[0]!;
  if (!(name in tags)) throw new UserError(`stack tag '${name}' not found for stack '${await ctx.displayName(ref)}'`, 'List the tags with `stackyard stack tag ls`.');
  ctx.out(tags[name]!);
};

export const tagLs: CommandHandler = async (ctx, _args, opts) => {
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  const { tags } = await requireExisting(ctx, backend, ref);
  const names = Object.keys(tags).sort();
  if (opts.json === true) return ctx.json(Object.fromEntries(names.map((n) => [n, tags[n]])));
  ctx.out(table(['NAME', 'VALUE'], names.map((n) => [n, tags[n]!])));
};

export const tagRm: CommandHandler = async (ctx, args, opts) => {
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  const { tags } = await requireExisting(ctx, backend, ref);
  const rest = { ...tags };
  delete rest[args[0]!];
  await backend.setTags(ref, rest);
};

export const tagSet: CommandHandler = async (ctx, args, opts) => {
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  const { tags } = await requireExisting(ctx, backend, ref);
  await backend.setTags(ref, { ...tags, [args[0]!]: args[1]! });
};
