/**
 * Environment names on the command line, read as ESC's CLI reads them (`cmd/esc/cli/env.go`):
 * `[<org>/][<project>/]<env>[@<version>]`. One part is `<env>` in project `default` (ESC's legacy name); two parts
 * are `<project>/<env>`, unless only `<org>/default/<env>` exists (then it is that one, with ESC's warning); three are
 * in full. A version follows `@` (or `:`); `@<version>` alone names a version of the environment given before it.
 */
import type { EnvironmentRef } from '../../shared/core/names.js';
import type { EnvironmentsBackend } from '../backend/environments-backend.js';
import { UserError } from '../output/errors.js';

/** The project of an environment named without one, as in ESC. */
export const DEFAULT_PROJECT = 'default';

/** A parsed environment name. */
export interface EnvironmentArg extends EnvironmentRef {
  /** Revision number or tag; empty when none was given. */
  version: string;
  /** Named with one part (`<env>`). */
  legacy: boolean;
  /** Named with two parts: `<project>/<env>` or `<org>/<env>`. */
  ambiguous: boolean;
}

/** `org/project/env[@version]`, as ESC prints a reference. */
export function formatEnvironmentArg(ref: Pick<EnvironmentArg, 'org' | 'project' | 'name'> & { version?: string }): string {
  return `${ref.org}/${ref.project}/${ref.name}${ref.version ? `@${ref.version}` : ''}`;
}

/** Reads a name without asking the backend anything (ESC's parseRef). */
export function parseEnvironmentArg(text: string, defaultOrg: string): EnvironmentArg {
  const parts = text.split('/');
  let org = defaultOrg;
  let project = DEFAULT_PROJECT;
  let rest: string;
  if (parts.length === 1) rest = parts[0]!;
  else if (parts.length === 2) [project, rest] = [parts[0]!, parts[1]!];
  else [org, project, rest] = [parts[0]!, parts[1]!, parts.slice(2).join('')];
  const at = rest.indexOf('@') >= 0 ? rest.indexOf('@') : rest.indexOf(':');
  const name = at < 0 ? rest : rest.slice(0, at);
  const version = at < 0 ? '' : rest.slice(at + 1);
  return { org, project, name, version, legacy: parts.length === 1, ambiguous: parts.length === 2 };
}

/** A name relative to `base`: `@<version>` alone is that version of `base`. */
export function parseRelativeArg(text: string, defaultOrg: string, base: EnvironmentArg): EnvironmentArg {
  const ref = parseEnvironmentArg(text, defaultOrg);
  if (ref.name === '' && ref.version !== '') return { ...base, version: ref.version };
  return ref;
}

async function exists(backend: EnvironmentsBackend, ref: EnvironmentRef): Promise<boolean> {
  return backend.getDefinition(ref, undefined, false).then(
    () => true,
    () => false,
  );
}

/** How ESC warns that a two-part name was read one way. */
function ambiguityWarning(text: string, resolved: EnvironmentArg): string {
  return `warning: environment reference "${text}" is ambiguous (resolved to ${formatEnvironmentArg(resolved)}). Use <org>/<project>/<environment> instead.`;
}

/** The `<org>/default/<env>` reading of a two-part name. */
function legacyReading(ref: EnvironmentArg): EnvironmentArg {
  return { ...ref, org: ref.project, project: DEFAULT_PROJECT, legacy: true };
}

/**
 * An existing environment: a two-part name is `<project>/<env>` unless only `<org>/default/<env>` exists; when both
 * do, the name is refused as ambiguous (ESC's getExistingEnvRef).
 */
export async function resolveExisting(
  backend: EnvironmentsBackend,
  text: string,
  defaultOrg: string,
  warn: (message: string) => void,
  base?: EnvironmentArg,
): Promise<EnvironmentArg> {
  const ref = base ? parseRelativeArg(text, defaultOrg, base) : parseEnvironmentArg(text, defaultOrg);
  if (!ref.ambiguous) return ref;
  const legacy = legacyReading(ref);
  const [asProject, asLegacy] = await Promise.all([exists(backend, ref), exists(backend, legacy)]);
  if (asProject && asLegacy) {
    throw new UserError(
      `ambiguous path provided\n\nEnvironments found at both '${formatEnvironmentArg(ref)}' and '${formatEnvironmentArg(legacy)}'.\nPlease specify the full path as <org-name>/<project-name>/<env-name>`,
    );
  }
  if (asLegacy) {
    warn(ambiguityWarning(text, legacy));
    return legacy;
  }
  return ref;
}

/**
 * A name for a new environment: a two-part name whose first part is one of the caller's organizations and not a
 * project of theirs is `<org>/default/<env>` (ESC's getNewEnvRef).
 */
export async function resolveNew(
  backend: EnvironmentsBackend,
  text: string,
  defaultOrg: string,
  organizations: string[],
  warn: (message: string) => void,
): Promise<EnvironmentArg> {
  const ref = parseEnvironmentArg(text, defaultOrg);
  if (!ref.ambiguous) return ref;
  const legacy = legacyReading(ref);
  if (!organizations.some((org) => org.toLowerCase() === legacy.org.toLowerCase())) return ref;
  const listed = await backend.list(undefined).catch(() => []);
  const projectExists = listed.some((e) => e.project.toLowerCase() === ref.project.toLowerCase());
  if (projectExists) {
    warn(ambiguityWarning(text, ref));
    return ref;
  }
  warn(ambiguityWarning(text, legacy));
  return legacy;
}

/** The environment name a command takes first (ESC's `--env` flag, else the first argument) and the arguments left. */
export function takeEnvironmentName(envFlag: unknown, args: (string | undefined)[]): { name: string; rest: string[] } {
  const given = args.filter((a): a is string => a !== undefined);
  if (typeof envFlag === 'string' && envFlag !== '') return { name: envFlag, rest: given };
  if (given.length === 0) throw new UserError('no environment name specified');
  return { name: given[0]!, rest: given.slice(1) };
}
