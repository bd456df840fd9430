import { InvalidInputError } from './errors.js';

/**
 * Name rules of the Pulumi service (pulumi-service-api.md §9). Every name that reaches storage passes through
 * here first, so names are always path-safe: no separators, no `..`, bounded length.
 */
const STACK_NAME = /^[A-Za-z0-9_.-]{1,100}$/;
const PROJECT_NAME = /^[A-Za-z0-9_.-]{1,100}$/;
const ORG_NAME = /^[a-zA-Z0-9][a-zA-Z0-9-_]{1,38}[a-zA-Z0-9]$/;
const TAG_NAME = /^[a-zA-Z0-9-_.:]{1,40}$/;
export const MAX_TAG_VALUE_LENGTH = 256;

/** A stack's public identity. Its storage identity is the immutable `StackRecord.id`. */
export interface StackRef {
  org: string;
  project: string;
  stack: string;
}

function rejectDotSegments(kind: string, value: string): void {
  if (value === '.' || value === '..') {
    throw new InvalidInputError(`${kind} name '${value}' is not allowed: choose a name with letters or digits.`);
  }
}

export function validateStackName(name: string): string {
  if (typeof name !== 'string' || !STACK_NAME.test(name)) {
    throw new InvalidInputError(
      `Invalid stack name '${String(name).slice(0, 120)}': a stack name may contain only alphanumeric ` +
        `characters, hyphens, underscores and periods, and be at most 100 characters long.`,
    );
  }
  rejectDotSegments('Stack', name);
  return name;
}

export function validateProjectName(name: string): string {
  if (typeof name !== 'string' || !PROJECT_NAME.test(name)) {
    throw new InvalidInputError(
      `Invalid project name '${String(name).slice(0, 120)}': a project name must be 1 to 100 characters of ` +
        `letters, digits, hyphens, underscores and periods.`,
    );
  }
  rejectDotSegments('Project', name);
  return name;
}

export function validateOrgName(name: string): string {
  if (typeof name !== 'string' || !ORG_NAME.test(name)) {
    throw new InvalidInputError(
      `Invalid organization name '${String(name).slice(0, 120)}': it must be 3 to 40 letters, digits, hyphens ` +
        `or underscores, starting and ending with a letter or digit.`,
    );
  }
  return name;
}

export function validateStackRef(ref: StackRef): StackRef {
  return {
    org: validateOrgName(ref.org),
    project: validateProjectName(ref.project),
    stack: validateStackName(ref.stack),
  };
}

export function validateTags(tags: Record<string, unknown>): Record<string, string> {
  if (tags === null || typeof tags !== 'object' || Array.isArray(tags)) {
    throw new InvalidInputError('Tags must be a JSON object of tag names to string values.');
  }
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(tags)) {
    if (!TAG_NAME.test(name)) {
      throw new InvalidInputError(
        `Invalid tag name '${name.slice(0, 60)}': tag names are 1 to 40 letters, digits, '-', '_', '.' or ':'.`,
      );
    }
    if (typeof value !== 'string') {
      throw new InvalidInputError(`Tag '${name}' must have a string value.`);
    }
    if (value.length > MAX_TAG_VALUE_LENGTH) {
      throw new InvalidInputError(`Tag '${name}' is too long: values are at most ${MAX_TAG_VALUE_LENGTH} characters.`);
    }
    result[name] = value;
  }
  return result;
}

export function formatStackRef(ref: StackRef): string {
  return `${ref.org}/${ref.project}/${ref.stack}`;
}

/**
 * Parses `stack`, `org/stack` or `org/project/stack` the way the Pulumi CLI does, filling the missing parts
 * from the defaults given.
 */
export function parseStackRef(text: string, defaults: { org?: string; project?: string }): StackRef {
  const parts = text.split('/');
  let ref: Partial<StackRef>;
  if (parts.length === 1) ref = { org: defaults.org, project: defaults.project, stack: parts[0] };
  else if (parts.length === 2) ref = { org: parts[0], project: defaults.project, stack: parts[1] };
  else if (parts.length === 3) ref = { org: parts[0], project: parts[1], stack: parts[2] };
  else {
    throw new InvalidInputError(
      `Invalid stack reference '${text.slice(0, 200)}': use 'stack', 'org/stack' or 'org/project/stack'.`,
    );
  }
  if (!ref.org) throw new InvalidInputError(`Stack '${text}' needs an organization: use 'org/${text}'.`);
  if (!ref.project) {
    throw new InvalidInputError(`Stack '${text}' needs a project: run inside a folder with a Pulumi.yaml.`);
  }
  return validateStackRef(ref as StackRef);
}

/** An environment's public identity (`<org>/<project>/<name>`); its storage identity is `EnvironmentRecord.id`. */
export interface EnvironmentRef {
  org: string;
  project: string;
  name: string;
}

const ENVIRONMENT_NAME = /^[A-Za-z0-9_.-]{1,100}$/;
/** Path segments the ESC routes use after an organization or project, so no project or environment may take them. */
const RESERVED_PROJECTS = new Set(['yaml']);
const RESERVED_ENVIRONMENTS = new Set(['open', 'yaml']);

/** ESC's rules: letters, digits, `-`, `_`, `.`, at most 100; not `.`, `..`, and not a word the routes use. */
export function validateEnvironmentRef(ref: EnvironmentRef): EnvironmentRef {
  const org = validateOrgName(ref.org);
  const project = validateProjectName(ref.project);
  if (RESERVED_PROJECTS.has(project)) {
    throw new InvalidInputError(`Project name '${project}' is reserved for environments: choose another project name.`);
  }
  const name = ref.name;
  if (typeof name !== 'string' || !ENVIRONMENT_NAME.test(name) || name === '.' || name === '..' || RESERVED_ENVIRONMENTS.has(name)) {
    throw new InvalidInputError(
      `Invalid environment name '${String(name).slice(0, 120)}': use 1 to 100 letters, digits, hyphens, underscores ` +
        `and periods (not '.', '..', 'open' or 'yaml').`,
    );
  }
  return { org, project, name };
}

/**
 * A stack's remote-config environment, `<project>/<env>` in the stack's organization (what `pulumi stack init
 * --remote-config` sends as `config.environment`), checked by ESC's naming rules.
 */
export function parseConfigEnvironment(org: string, text: unknown): EnvironmentRef {
  const parts = typeof text === 'string' ? text.split('/') : [];
  if (parts.length !== 2) {
    throw new InvalidInputError(
      `Invalid config environment '${String(text).slice(0, 120)}': expected '<project>/<environment>', as \`stack init --remote-config\` sends it.`,
    );
  }
  return validateEnvironmentRef({ org, project: parts[0]!, name: parts[1]! });
}

/** The `<project>/<env>` text of a stack's remote-config environment, checked as `parseConfigEnvironment` does. */
export function validateConfigEnvironment(text: unknown): string {
  const { project, name } = parseConfigEnvironment('org', text);
  return `${project}/${name}`;
}

export function formatEnvironmentRef(ref: EnvironmentRef): string {
  return `${ref.org}/${ref.project}/${ref.name}`;
}
