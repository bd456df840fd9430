/**
 * `stackyard env version` and its subcommands, as ESC's CLI (`cmd/esc/cli/env_version*.go`): describe a revision or
 * tag, `history`, `rollback` (the version's definition saved as a new revision), and revision tags (`tag`, `tag ls`,
 * `tag rm`). Times print in local time unless `--utc`, as Go prints a time.Time.
 */
import type { EnvironmentRevision, EnvironmentRevisionTag, EnvironmentsBackend } from '../../backend/environments-backend.js';
import { yamlDiagnostics } from '../../environments/diagnostics.js';
import type { EnvironmentArg } from '../../environments/refs.js';
import { table } from '../format.js';
import { UserError } from '../../output/errors.js';
import type { CommandHandler } from '../types.js';
import { escSession, existingFromArgs } from './env-context.js';

const isRevisionNumber = (version: string) => /^[0-9]/.test(version);

/** Go's time.Time String(): `2006-01-02 15:04:05.999999999 -0700 MST` (UTC, or the machine's zone). */
export function goTime(iso: string, utc: boolean): string {
  const date = new Date(iso);
  const offset = utc ? 0 : -date.getTimezoneOffset();
  const local = new Date(date.getTime() + offset * 60_000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const ms = local.getUTCMilliseconds();
  const fraction = ms === 0 ? '' : `.${pad(ms, 3).replace(/0+$/, '')}`;
  const sign = offset < 0 ? '-' : '+';
  const zone = utc ? 'UTC' : (new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' }).formatToParts(date).find((p) => p.type === 'timeZoneName')?.value ?? '');
  return (
    `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())} ` +
    `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}${fraction} ` +
    `${sign}${pad(Math.floor(Math.abs(offset) / 60))}${pad(Math.abs(offset) % 60)} ${zone}`
  );
}

function printRevision(r: EnvironmentRevision, utc: boolean): string {
  const tags = r.tags.length === 0 ? '' : r.tags.length === 1 ? ` (tag: ${r.tags[0]})` : ` (tags: ${r.tags.join(', ')})`;
  const author = r.creatorLogin === '' ? '<unknown>' : `${r.creatorName} <${r.creatorLogin}>`;
  return `revision ${r.number}${tags}\nAuthor: ${author}\nDate:   ${goTime(r.created, utc)}\n`;
}

function printTag(tag: EnvironmentRevisionTag, utc: boolean): string {
  const editor = tag.editorLogin === '' ? '<unknown>' : `${tag.editorName} <${tag.editorLogin}>`;
  return `${tag.name}\nRevision ${tag.revision}\nLast updated at ${goTime(tag.modified, utc)} by ${editor}\n`;
}

/** The revision a version names (ESC's GetRevisionNumber): a number as it is, a tag through the service. */
async function revisionNumber(envs: EnvironmentsBackend, ref: EnvironmentArg, version: string): Promise<number> {
  if (version === '') version = 'latest';
  if (isRevisionNumber(version)) {
    if (!/^[0-9]+$/.test(version)) throw new UserError(`invalid revision number "${version}"`);
    return Number(version);
  }
  return (await envs.getRevisionTag(ref, version)).revision;
}

function outputFormat(opts: Record<string, unknown>): 'text' | 'json' {
  const output = (opts.output as string | undefined) ?? 'text';
  if (output === '' || output === 'text') return 'text';
  if (output === 'json') return 'json';
  throw new UserError(`invalid --output "${output}": must be "text" or "json"`);
}

/** `env version <env>@<version> [--utc]`. */
export const envVersion: CommandHandler = async (ctx, args, opts) => {
  const session = await escSession(ctx);
  const { ref } = await existingFromArgs(session, opts, args);
  if (ref.version === '') throw new UserError('please specify a version');
  if (isRevisionNumber(ref.version)) {
    const number = await revisionNumber(session.envs, ref, ref.version);
    const [revision] = await session.envs.listRevisions(ref, number + 1, 1);
    if (!revision || revision.number !== number) throw new UserError(`environment ${ref.project}/${ref.name} has no revision ${number}`);
    process.stdout.write(printRevision(revision, opts.utc === true));
  } else {
    process.stdout.write(printTag(await session.envs.getRevisionTag(ref, ref.version), opts.utc === true));
  }
};

/** `env version history <env>[@version] [--utc] [--output json]`: newest first, from the version when one is given. */
export const envVersionHistory: CommandHandler = async (ctx, args, opts) => {
  const format = outputFormat(opts);
  const session = await escSession(ctx);
  const { ref } = await existingFromArgs(session, opts, args);
  let before = ref.version === '' ? 0 : (await revisionNumber(session.envs, ref, ref.version)) + 1;
  const revisions: EnvironmentRevision[] = [];
  for (;;) {
    const page = await session.envs.listRevisions(ref, before, 500);
    if (page.length === 0) break;
    revisions.push(...page);
    before = page[page.length - 1]!.number;
    if (before <= 1) break;
  }
  if (format === 'json') ctx.json({ revisions });
  else process.stdout.write(revisions.map((r) => `${printRevision(r, opts.utc === true)}\n`).join(''));
};

/** `env version rollback <env>@<version>`: saves that version's definition as the newest revision. */
export const envVersionRollback: CommandHandler = async (ctx, args, opts) => {
  const session = await escSession(ctx);
  const { ref } = await existingFromArgs(session, opts, args);
  if (ref.version === '') throw new UserError('please specify a version');
  const { yaml } = await session.envs.getDefinition(ref, ref.version, false);
  const diagnostics = await session.envs.update(ref, yaml);
  if (diagnostics.length > 0) {
    process.stderr.write(yamlDiagnostics(`${ref.project}/${ref.name}`, yaml, diagnostics));
    throw new UserError('could not roll back: too many errors');
  }
  ctx.out('Environment updated.');
};

/** `env version tag <env>@<tag> [@<version>]`: creates the tag, or moves it, to the version (default: the latest). */
export const envVersionTag: CommandHandler = async (ctx, args, opts) => {
  const session = await escSession(ctx);
  const { ref, rest } = await existingFromArgs(session, opts, args);
  if (ref.version === '' || isRevisionNumber(ref.version)) throw new UserError('please specify a name for the tagged version');
  const revision =
    rest[0] === undefined ? (await session.envs.getRevisionTag(ref, 'latest')).revision : await revisionNumber(session.envs, ref, rest[0].replace(/^@/, ''));
  try {
    await session.envs.updateRevisionTag(ref, ref.version, revision);
  } catch (error) {
    if ((error as { status?: number }).status !== 404) throw error;
    await session.envs.createRevisionTag(ref, ref.version, revision);
  }
};

/** `env version tag ls <env> [--utc] [--output json]`. */
export const envVersionTagLs: CommandHandler = async (ctx, args, opts) => {
  const format = outputFormat(opts);
  const session = await escSession(ctx);
  const { ref } = await existingFromArgs(session, opts, args);
  if (ref.version !== '') throw new UserError('the ls command does not accept versions');
  const tags = await session.envs.listRevisionTags(ref);
  const utc = opts.utc === true;
  if (format === 'json') {
    ctx.json({ tags: tags.map((t) => ({ name: t.name, revision: t.revision, modified: t.modified, ...(t.editorLogin ? { editorLogin: t.editorLogin, editorName: t.editorName } : {}) })) });
    return;
  }
  if (tags.length === 0) return;
  ctx.out(table(['NAME', 'REVISION', 'MODIFIED', 'EDITOR'], tags.map((t) => [t.name, String(t.revision), goTime(t.modified, utc), t.editorLogin ? `${t.editorName} <${t.editorLogin}>` : '<unknown>'])));
};

/** `env version tag rm <env>@<tag>`. */
export const envVersionTagRm: CommandHandler = async (ctx, args, opts) => {
  const session = await escSession(ctx);
  const { ref } = await existingFromArgs(session, opts, args);
  if (ref.version === '' || isRevisionNumber(ref.version)) throw new UserError('please specify a tagged version to remove');
  await session.envs.deleteRevisionTag(ref, ref.version);
};
