/**
 * `config refresh`: rewrites `Pulumi.<stack>.yaml` with the configuration the stack's last update ran with (its
 * history entry; secrets stay encrypted with the stack's key), as Pulumi's does. An existing file is first renamed to
 * `<file>.bak` (`.bak.bak`… when taken) unless `--force` is given.
 */
import { promises as fs } from 'node:fs';
import { UserError } from '../output/errors.js';
import { configTarget } from './config.js';
import type { CommandHandler } from './types.js';

/** An update's recorded config value (`{string, secret, object}`) as the stack file holds it. */
function fileValue(recorded: unknown): unknown {
  const { string, secret, object } = recorded as { string: string; secret?: boolean; object?: boolean };
  // An object keeps its secrets inside as `{secure}` leaves, so its JSON text is the file's value as it was.
  if (object === true) return JSON.parse(string) as unknown;
  return secret === true ? { secure: string } : string;
}

/** `<path>.bak`, or `.bak` added again until the name is free. */
async function freeBackupPath(path: string): Promise<string> {
  let backup = `${path}.bak`;
  while (await fs.stat(backup).then(() => true, () => false)) backup += '.bak';
  return backup;
}

export const configRefresh: CommandHandler = async (ctx, _args, opts) => {
  const { backend, ref, file } = await configTarget(ctx, opts);
  // As Pulumi (its issue 19557): a remote-config stack cannot be reset to an earlier configuration yet.
  if (file.remoteEnvironment !== undefined) throw new UserError('cannot refresh stacks with remote config', `Its configuration is the ESC environment ${file.remoteEnvironment}: see its revisions with \`stackyard env version history ${file.remoteEnvironment}\`.`);
  const [latest] = await backend.history(ref, 1, 1);
  if (!latest) {
    throw new UserError('getting latest configuration: no previous deployment', 'Run `stackyard up` first; `config refresh` restores the configuration of the last update.');
  }
  file.replaceAll(Object.fromEntries(Object.entries(latest.config).map(([key, recorded]) => [key, fileValue(recorded)])));
  // The stack's secrets are its own key's: a passphrase or cloud provider's settings would no longer apply.
  file.clearSecretsSettings();
  if (!file.exists || opts.force === true) {
    await file.save();
    return;
  }
  const backup = await freeBackupPath(file.path);
  await fs.rename(file.path, backup);
  ctx.out(`backed up existing configuration file to ${backup}`);
  await file.save();
  ctx.out(`refreshed configuration for stack '${ref.stack}'`);
};
