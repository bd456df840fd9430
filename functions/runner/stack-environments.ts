/**
 * The ESC environments a run's stack imports: `environment:` of `Pulumi.<stack>.yaml` in the cloned project (in the
 * project's `stackConfigDir` when `Pulumi.yaml` sets one), read right after the clone, before any step of the
 * repository (npm, pre-run commands, the program) runs, and declared to the service as all the run's token may open.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

function yamlFile(path: string): Record<string, unknown> | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const parsed: unknown = parse(readFileSync(path, 'utf8'));
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    // A file the CLI cannot read either: the CLI's step reports it with its own words.
    return undefined;
  }
}

/** The names listed by the stack's config (`[project/]env[@version]`), in order; none when it lists none. */
export function stackEnvironmentNames(projectDir: string, stack: string): string[] {
  const project = yamlFile(join(projectDir, 'Pulumi.yaml')) ?? yamlFile(join(projectDir, 'Pulumi.yml'));
  const configDir = typeof project?.stackConfigDir === 'string' ? resolve(projectDir, project.stackConfigDir) : projectDir;
  const list = yamlFile(join(configDir, `Pulumi.${stack}.yaml`))?.environment;
  return Array.isArray(list) ? list.filter((name): name is string => typeof name === 'string') : [];
}
