/**
 * A Pulumi project template as Pulumi reads one (pkg/cmd/pulumi/templates): a folder whose Pulumi.yaml may carry a
 * `template:` section (description, quickstart, config with description/default/secret, important, displayName,
 * metadata), copied with `${PROJECT}` and `${DESCRIPTION}` replaced in file names and text files.
 */
import { existsSync, promises as fs, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse, stringify } from 'yaml';
import { UserError } from '../output/errors.js';
import { yamlErrorText } from '../project/yaml-errors.js';

/** One `template.config` entry. */
export interface TemplateConfigValue {
  description?: string;
  default?: string;
  secret: boolean;
}

export interface ProjectTemplate {
  dir: string;
  /** The folder's name. */
  name: string;
  description: string;
  quickstart?: string;
  config: Record<string, TemplateConfigValue>;
  /** `name:` of the template's Pulumi.yaml (`${PROJECT}` in most templates). */
  projectName: string;
  projectDescription: string;
}

const TEMPLATE_KEYS = new Set(['description', 'quickstart', 'config', 'important', 'displayName', 'metadata']);
const CONFIG_KEYS = new Set(['description', 'default', 'secret']);
/** Pulumi's old per-template manifest, never copied. */
const LEGACY_MANIFEST = '.pulumi.template.yaml';

const scalar = (value: unknown) => (value === undefined || value === null ? undefined : typeof value === 'object' ? JSON.stringify(value) : String(value));

/** Reads the template in `dir`; a `template:` key stackyard does not know is refused, as Pulumi's schema refuses it. */
export async function loadTemplate(dir: string): Promise<ProjectTemplate> {
  const file = join(dir, 'Pulumi.yaml');
  let project: Record<string, unknown>;
  let text = '';
  try {
    text = await fs.readFile(file, 'utf8');
    project = (parse(text) ?? {}) as Record<string, unknown>;
  } catch (error) {
    const reason = yamlErrorText(text) ?? (error as Error).message.split('\n')[0];
    throw new UserError(`template '${basename(dir)}' is currently broken: ${file} is not valid YAML: ${reason}`);
  }
  const template = (project.template ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(template)) {
    if (!TEMPLATE_KEYS.has(key)) throw new UserError(`template '${basename(dir)}' is currently broken: unknown key \`template.${key}\` in ${file}`);
  }
  const config: Record<string, TemplateConfigValue> = {};
  for (const [key, spec] of Object.entries((template.config ?? {}) as Record<string, Record<string, unknown> | null>)) {
    for (const name of Object.keys(spec ?? {})) {
      if (!CONFIG_KEYS.has(name)) throw new UserError(`template '${basename(dir)}' is currently broken: unknown key \`${name}\` of config \`${key}\` in ${file}`);
    }
    config[key] = { description: scalar(spec?.description), default: scalar(spec?.default), secret: spec?.secret === true };
  }
  return {
    dir,
    name: basename(dir),
    description: scalar(template.description) ?? '',
    quickstart: scalar(template.quickstart),
    config,
    projectName: scalar(project.name) ?? '',
    projectDescription: scalar(project.description) ?? '',
  };
}

/** Pulumi's placeholders; in YAML files the values go in as YAML strings (quoted where they need it). */
function transform(text: string, name: string, description: string): string {
  return text.replaceAll('${PROJECT}', name).replaceAll('${DESCRIPTION}', description);
}

/** Git's test for a binary file: a NUL byte in the first 8000 bytes. */
const isBinary = (bytes: Buffer) => bytes.subarray(0, 8000).includes(0);

/** Every file to copy, as [source, destination], and every folder to create, in the template's order. */
async function plan(source: string, dest: string, projectName: string, into: { dirs: string[]; files: [string, string][] }): Promise<typeof into> {
  for (const entry of await fs.readdir(source, { withFileTypes: true })) {
    const from = join(source, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === '.git') continue;
      into.dirs.push(join(dest, entry.name));
      await plan(from, join(dest, entry.name), projectName, into);
    } else if (entry.name !== LEGACY_MANIFEST) {
      into.files.push([from, transform(join(dest, entry.name), projectName, '')]);
    }
  }
  return into;
}

/** Fails, naming them, when copying would overwrite files (Pulumi's dry run before a copy without --force). */
export async function checkNoOverwrites(template: ProjectTemplate, dest: string, projectName: string): Promise<void> {
  const { files } = await plan(template.dir, dest, projectName, { dirs: [], files: [] });
  const existing = files.filter(([, to]) => existsSync(to) && !statSync(to).isDirectory()).map(([, to]) => basename(to));
  if (existing.length > 0) {
    throw new UserError(
      `creating this template will make changes to existing files:\n${existing.map((f) => `  overwrite   ${f}\n`).join('')}\nrerun the command and pass --force to accept and create`,
    );
  }
}

/** Copies the template into `dest` with its placeholders replaced; `force` overwrites files that exist. */
export async function copyTemplate(template: ProjectTemplate, dest: string, force: boolean, projectName: string, description: string): Promise<void> {
  const { dirs, files } = await plan(template.dir, dest, projectName, { dirs: [], files: [] });
  for (const dir of dirs) {
    if (force && existsSync(dir) && !statSync(dir).isDirectory()) await fs.rm(dir);
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  }
  for (const [from, to] of files) {
    const bytes = await fs.readFile(from);
    const yaml = from.endsWith('.yaml');
    const text = isBinary(bytes) ? bytes : transform(bytes.toString('utf8'), yaml ? stringify(projectName) : projectName, yaml ? stringify(description) : description);
    if (force && existsSync(to) && statSync(to).isDirectory()) await fs.rm(to, { recursive: true });
    // At least 0600, and whatever else the source allowed (its executable bit).
    await fs.writeFile(to, text, { mode: ((await fs.lstat(from)).mode & 0o777) | 0o600, flag: force ? 'w' : 'wx' });
  }
}
