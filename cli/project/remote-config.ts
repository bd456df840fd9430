/**
 * Remote stack configuration (`stack init --remote-config`): a stack whose service record names an ESC environment
 * (`config.environment` on `GET` of the stack) reads its configuration from that environment, never from
 * `Pulumi.<stack>.yaml`, as Pulumi's `LoadProjectStack` does (pkg/cmd/pulumi/stack/io.go).
 */
import { promises as fs } from 'node:fs';
import { UserError } from '../output/errors.js';
import { stackConfigPath, type Project } from './project.js';
import { StackConfigFile } from './stack-config.js';

/** What deciding where a stack's configuration comes from needs. */
export interface StackConfigSource {
  project: Project;
  stack: string;
  /** The stack's remote-config environment (`StackDetails.configEnvironment`), if it has one. */
  configEnvironment?: string;
  /** `--config-file`: used as it is, remote config or not (as Pulumi does). */
  configFile?: string;
  warn(message: string): void;
}

/**
 * The stack's configuration: the given file, else its environment (with Pulumi's warning when a local
 * `Pulumi.<stack>.yaml` is there too, which is then ignored), else `Pulumi.<stack>.yaml`.
 */
export async function loadStackConfigFile(source: StackConfigSource): Promise<StackConfigFile> {
  if (source.configFile !== undefined) return StackConfigFile.load(source.configFile);
  const path = stackConfigPath(source.project, source.stack);
  if (source.configEnvironment === undefined) return StackConfigFile.load(path);
  const local = await fs.stat(path).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false;
      throw new UserError(`checking if config file ${path} exists: ${error.message}`);
    },
  );
  if (local) source.warn(`config file ${path} exists but will be ignored because this stack uses remote config`);
  return StackConfigFile.remote(path, source.configEnvironment);
}

/**
 * Pulumi's refusal of a config edit on a remote-config stack (pkg/cmd/pulumi/config/config.go): `suggestion` names
 * the `stackyard env` command that edits the environment instead.
 */
export function remoteConfigRefusal(command: string, suggestion: string): UserError {
  return new UserError(`${command} not supported for remote stack config: use ${suggestion}`);
}
