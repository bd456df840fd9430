/**
 * A run's program on the runner's disk: a git clone of `sourceContext.git`, or the program archive the run was
 * queued with (`deployment run --source <dir>`), unpacked. Either way the result is the project folder the install,
 * the pre-run commands and the CLI run in.
 */
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { extract, Parser, type ReadEntry } from 'tar';
import type { ClaimedRun, GitRunSource, RunnerService } from '../../shared/core/deployments/runner-service.js';
import { gitCredentials } from './git-credentials.js';
import { StepFailed } from './step-failed.js';

/** Runs one command as a step of the run (`env` added to the steps' own); a non-zero exit throws `StepFailed`. */
export type RunStep = (what: string, command: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv) => Promise<void>;

/** What an archive may unpack to: far above a program's sources, far below what would fill a runner's disk. */
const MAX_UNPACKED_BYTES = 256 * 1024 * 1024;
const MAX_ENTRIES = 20_000;

/** Puts the run's program under `workspace` and returns its project folder. */
export async function checkoutSource(runner: RunnerService, claimed: ClaimedRun, workspace: string, line: (line: string) => void, step: RunStep): Promise<string> {
  const { source } = claimed;
  if ('archive' in source) return unpackArchive(runner, claimed, workspace, line);
  return cloneRepository(source, claimed, workspace, line, step);
}

/** A repository URL as the log shows it: any `user:password@` written into it is left out. */
function withoutUserInfo(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
}

async function cloneRepository(source: GitRunSource, claimed: ClaimedRun, workspace: string, line: (line: string) => void, step: RunStep): Promise<string> {
  const checkout = join(workspace, 'source');
  line(`$ git clone ${withoutUserInfo(source.repoUrl)}${source.branch ? ` --branch ${source.branch}` : ''}`);
  const branch = source.branch ? ['--branch', source.branch, '--single-branch'] : [];
  const credentials = gitCredentials(workspace, claimed.gitAuth);
  try {
    const cloneArgs = [...credentials.configArgs, 'clone', '--quiet', ...branch, '--', source.repoUrl, checkout];
    await step('clone failed', 'git', cloneArgs, workspace, credentials.env);
  } finally {
    credentials.dispose();
  }
  if (source.commit) {
    line(`$ git checkout ${source.commit}`);
    await step('clone failed', 'git', ['checkout', '--quiet', '--detach', source.commit], checkout);
  }
  const project = join(checkout, source.repoDir ?? '');
  if (!existsSync(project) || !statSync(project).isDirectory()) throw new StepFailed(`clone failed: the repository has no folder '${source.repoDir}'`);
  return project;
}

async function unpackArchive(runner: RunnerService, claimed: ClaimedRun, workspace: string, line: (line: string) => void): Promise<string> {
  const project = join(workspace, 'source');
  let archive: Uint8Array;
  try {
    archive = await runner.sourceArchive(claimed.run);
  } catch (error) {
    throw new StepFailed(`unpack failed: ${(error as Error).message}`);
  }
  line(`$ unpack the uploaded program archive (${archive.length} bytes)`);
  const problem = archiveProblem(archive);
  if (problem) throw new StepFailed(`unpack failed: the archive ${problem}`);
  const file = join(workspace, 'source.tgz');
  writeFileSync(file, archive);
  mkdirSync(project, { recursive: true });
  try {
    await extract({ file, cwd: project, strict: true });
  } catch (error) {
    throw new StepFailed(`unpack failed: ${(error as Error).message}`);
  }
  return project;
}

/**
 * What is wrong with an archive before anything of it is written: it must inflate within MAX_UNPACKED_BYTES and hold
 * only files and folders, each under the project folder (no absolute paths, no `..`, no links).
 */
function archiveProblem(archive: Uint8Array): string | undefined {
  let tar: Buffer;
  try {
    tar = gunzipSync(archive, { maxOutputLength: MAX_UNPACKED_BYTES });
  } catch {
    return `is not a gzip'd tar, or unpacks to more than ${MAX_UNPACKED_BYTES / 1024 / 1024} MB`;
  }
  let problem: string | undefined;
  let entries = 0;
  const parser = new Parser({
    strict: true,
    onReadEntry(entry: ReadEntry) {
      entries++;
      const path = entry.path.replace(/\\/g, '/');
      if (entry.type !== 'File' && entry.type !== 'Directory') problem ??= `holds ${path.slice(0, 200)}, a ${entry.type}: only files and folders are unpacked`;
      else if (path.startsWith('/') || path.split('/').includes('..')) problem ??= `holds ${path.slice(0, 200)}, outside the project folder`;
      entry.resume();
    },
  });
  parser.on('error', (error: Error) => (problem ??= `cannot be read as tar (${error.message.slice(0, 120)})`));
  parser.end(tar);
  if (!problem && entries > MAX_ENTRIES) problem = `has ${entries} entries, over the ${MAX_ENTRIES} a run's source may have`;
  return problem;
}
