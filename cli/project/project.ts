/**
 * The Pulumi project around the current directory: `Pulumi.yaml` found the way `pulumi` finds it (this folder or
 * the nearest parent), and where each stack's `Pulumi.<stack>.yaml` lives.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { validateProjectName } from '../../shared/core/names.js';
import { UserError } from '../output/errors.js';
import { parseProjectConfig, type ProjectConfigType } from './config-schema.js';
import { checkProjectKeys } from './file-keys.js';
import { parseYamlCached } from './yaml-cache.js';

const PROJECT_FILES = ['Pulumi.yaml', 'Pulumi.yml'];

export interface Project {
  /** The folder holding the project file. */
  dir: string;
  /** Absolute path of Pulumi.yaml. */
  file: string;
  name: string;
  description?: string;
  /** Runtime name (`nodejs`, …). */
  runtime?: string;
  /** The parsed project file, for the engine's own reading (program, plugins). */
  raw: Record<string, unknown>;
  /** The declarations of `config:`, sorted by key as written. */
  config: ProjectConfigType[];
  /** Folder of the stack config files (`stackConfigDir`), default the project folder. */
  stackConfigDir: string;
}

/** The nearest project at or above `cwd`, or `undefined`. */
export async function findProject(cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Project | undefined> {
  let dir = resolve(cwd);
  for (;;) {
    for (const name of PROJECT_FILES) {
      const file = join(dir, name);
      // Synchronously, as readCredentials explains.
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (error) {
        const { code } = error as NodeJS.ErrnoException;
        if (code === 'ENOENT' || code === 'ENOTDIR') continue;
        throw error;
      }
      return parseProject(file, text, env);
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The project at or above `cwd`; a clear error when there is none. */
export async function requireProject(cwd: string): Promise<Project> {
  const project = await findProject(cwd);
  if (!project) {
    throw new UserError(
      `no Pulumi.yaml project file found in ${resolve(cwd)} or any parent folder`,
      'Run this command inside a Pulumi project folder, or point at one with -C <dir>.',
    );
  }
  return project;
}

async function parseProject(file: string, text: string, env: NodeJS.ProcessEnv): Promise<Project> {
  let raw: unknown;
  try {
    raw = await parseYamlCached(text, env);
  } catch (error) {
    const { yamlErrorText } = await import('./yaml-errors.js');
    const reason = yamlErrorText(text) ?? (error as Error).message.split('\n')[0];
    throw new UserError(`${file} is not valid YAML: ${reason}`, 'Fix the file and run the command again.');
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new UserError(`${file} must be a YAML mapping with at least a \`name\``, 'Add `name: <project>` and `runtime: nodejs`.');
  }
  const doc = raw as Record<string, unknown>;
  if (typeof doc.name !== 'string' || doc.name === '') {
    throw new UserError(`${file} has no project name`, 'Add `name: <project>` to it.');
  }
  try {
    validateProjectName(doc.name);
  } catch (error) {
    throw new UserError(`${file}: ${(error as Error).message}`);
  }
  checkProjectKeys(file, doc);
  const dir = dirname(file);
  const runtime = typeof doc.runtime === 'string' ? doc.runtime : (doc.runtime as { name?: unknown } | undefined)?.name;
  return {
    dir,
    file,
    name: doc.name,
    description: typeof doc.description === 'string' ? doc.description : undefined,
    runtime: typeof runtime === 'string' ? runtime : undefined,
    raw: doc,
    config: parseProjectConfig(file, doc.name, doc.config),
    stackConfigDir: typeof doc.stackConfigDir === 'string' ? resolve(dir, doc.stackConfigDir) : dir,
  };
}

/** `Pulumi.<stack>.yaml` of a stack: named after the stack name alone, as `pulumi` names it. */
export function stackConfigPath(project: Project, stack: string): string {
  return join(project.stackConfigDir, `Pulumi.${stack}.yaml`);
}
