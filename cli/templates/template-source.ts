/**
 * Where `new` takes a template from: a folder on this machine, or an archive URL (`.zip`, the format Pulumi downloads;
 * `.tar.gz`/`.tgz` too) fetched once into a temporary folder. Pulumi's template names and git repositories are
 * refused with the way to a folder: stackyard keeps no template catalogue and clones nothing.
 */
import { existsSync, promises as fs, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { UserError } from '../output/errors.js';
import { extractZip } from './zip.js';

/** A template's folder (the one holding its Pulumi.yaml) and how to clean up after it. */
export interface TemplateSource {
  dir: string;
  /** Removes what the download left (nothing for a local folder). */
  cleanup(): Promise<void>;
}

function archiveKind(url: URL): 'zip' | 'tar' | undefined {
  if (url.pathname.endsWith('.zip')) return 'zip';
  if (url.pathname.endsWith('.tar.gz') || url.pathname.endsWith('.tgz')) return 'tar';
  return undefined;
}

/** The folder holding Pulumi.yaml: `dir` itself, else its only subfolder that holds one (an archive's top folder). */
async function templateFolder(dir: string, shown: string): Promise<string> {
  if (existsSync(join(dir, 'Pulumi.yaml'))) return dir;
  const entries = await fs.readdir(dir, { withFileTypes: true });
  const templates = entries.filter((e) => e.isDirectory() && e.name !== '.git' && existsSync(join(dir, e.name, 'Pulumi.yaml'))).map((e) => e.name);
  if (templates.length === 1) return join(dir, templates[0]!);
  if (templates.length === 0) throw new UserError(`template '${shown}' not found: it holds no Pulumi.yaml`, 'Pass the folder of a template (the one with its Pulumi.yaml).');
  throw new UserError(`'${shown}' holds ${templates.length} templates (${templates.sort().join(', ')})`, 'Pass the folder of the one you want.');
}

async function download(text: string, url: URL, kind: 'zip' | 'tar', offline: boolean): Promise<TemplateSource> {
  if (offline) throw new UserError(`cannot use ${text} offline`, 'Drop --offline, or pass the template\'s folder.');
  let response: Response;
  try {
    response = await fetch(url, { headers: { Accept: kind === 'zip' ? 'application/zip' : 'application/gzip' } });
  } catch (error) {
    throw new UserError(`failed to download template: ${(error as Error).message}`, `Check that ${url.origin} answers.`);
  }
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) throw new UserError(`failed to download template: ${response.status} ${response.statusText}`, `Check the URL ${text}.`);
  const temp = await fs.mkdtemp(join(tmpdir(), 'stackyard-template-'));
  const cleanup = () => fs.rm(temp, { recursive: true, force: true });
  try {
    if (kind === 'zip') {
      await extractZip(body, temp);
    } else {
      const { extract } = await import('tar');
      await fs.writeFile(join(temp, '.archive.tgz'), body);
      await extract({ file: join(temp, '.archive.tgz'), cwd: temp, strict: true }).catch((error: Error) => {
        throw new UserError(`the template archive is not a valid .tar.gz: ${error.message}`, `Check the URL ${text}.`);
      });
      await fs.rm(join(temp, '.archive.tgz'));
    }
    return { dir: await templateFolder(temp, text), cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/** The template `text` names: a folder (relative to `base`), or an archive URL to download (refused with `--offline`). */
export async function openTemplate(text: string, base: string, offline: boolean): Promise<TemplateSource> {
  if (/^https?:\/\//i.test(text)) {
    const url = new URL(text);
    const kind = archiveKind(url);
    if (!kind) {
      throw new UserError(
        `stackyard cannot fetch the template ${text}: it downloads .zip and .tar.gz archives, and does not clone git repositories`,
        'Pass the URL of an archive of the template, or clone the repository and pass the template\'s folder.',
      );
    }
    return download(text, url, kind, offline);
  }
  const dir = resolve(base, text);
  if (existsSync(dir) && statSync(dir).isDirectory()) return { dir: await templateFolder(dir, text), cleanup: async () => {} };
  throw new UserError(
    `template '${text}' not found: stackyard takes a template folder or a .zip/.tar.gz URL, not a name from Pulumi's template catalogue`,
    'Clone https://github.com/pulumi/templates and pass the template\'s folder, e.g. `stackyard new ./templates/typescript`.',
  );
}
