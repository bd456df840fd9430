import { InvalidInputError } from '../errors.js';
import type { StackRecord } from '../../ports/stack-store.js';
import type { StackKeyring } from '../kernel/deps.js';
import { validateGitAuth } from './git-auth.js';
import { validatePostResults } from '../push-webhooks/result-settings.js';

/**
 * The top-level fields of Pulumi's `DeploymentSettings` (apitype/deployments.go), plus Stackyard's `pushWebhook` (the
 * push webhook's secret, docs/deployments.md); any other is refused.
 */
const SETTINGS_FIELDS = new Set(['tag', 'executorContext', 'sourceContext', 'gitHub', 'operationContext', 'agentPoolID', 'cacheOptions', 'pushWebhook']);

/** Where Pulumi's `SecretValue`s sit in a settings document (a map of them at `operationContext.environmentVariables`). */
const SECRET_PATHS: readonly (readonly string[])[] = [
  ['sourceContext', 'git', 'gitAuth', 'accessToken'],
  ['sourceContext', 'git', 'gitAuth', 'sshAuth', 'sshPrivateKey'],
  ['sourceContext', 'git', 'gitAuth', 'sshAuth', 'password'],
  ['sourceContext', 'git', 'gitAuth', 'basicAuth', 'userName'],
  ['sourceContext', 'git', 'gitAuth', 'basicAuth', 'password'],
  ['executorContext', 'executorImage', 'credentials', 'password'],
  ['pushWebhook', 'secret'],
  ['pushWebhook', 'postResults', 'token'],
];

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A secret value (`{ "secret": … }` or `{ "ciphertext": … }`): one value, never merged into another. */
function isSecretValue(value: Json): boolean {
  return typeof value.secret === 'string' || typeof value.ciphertext === 'string';
}

/**
 * RFC 7396 merge, as Pulumi Cloud applies a settings `POST`: objects merge key by key, `null` removes a key, and
 * anything else (arrays included) replaces what was there. A secret value replaces the one stored whole: merged into
 * the stored `{ ciphertext }`, a new `{ secret }` would sit beside the old ciphertext, which sealing keeps.
 */
export function mergeSettings(base: Json, patch: Json): Json {
  const merged: Json = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else if (isObject(value) && isObject(merged[key]) && !isSecretValue(value)) merged[key] = mergeSettings(merged[key] as Json, value);
    else merged[key] = isObject(value) ? mergeSettings({}, value) : value;
  }
  return merged;
}

/** Refuses a settings document that does not have Pulumi's shape where the runner relies on it. */
export function validateSettings(settings: Json): void {
  for (const key of Object.keys(settings)) {
    if (!SETTINGS_FIELDS.has(key)) {
      throw new InvalidInputError(`Unknown deployment settings field '${key.slice(0, 64)}': expected one of ${[...SETTINGS_FIELDS].join(', ')}.`);
    }
  }
  const git = objectAt(settings, ['sourceContext', 'git']);
  if (git) {
    for (const field of ['repoUrl', 'branch', 'commit', 'repoDir']) {
      if (git[field] !== undefined && typeof git[field] !== 'string') throw new InvalidInputError(`sourceContext.git.${field} must be a string.`);
    }
    if (typeof git.repoDir === 'string' && (git.repoDir.startsWith('/') || git.repoDir.split('/').includes('..'))) {
      throw new InvalidInputError(`sourceContext.git.repoDir must be a path inside the repository, got '${git.repoDir.slice(0, 100)}'.`);
    }
    if (git.branch && git.commit) throw new InvalidInputError('sourceContext.git takes a branch or a commit, not both.');
    validateGitAuth(git.gitAuth);
  }
  validatePushFields(settings);
  const operation = objectAt(settings, ['operationContext']);
  if (operation?.preRunCommands !== undefined && !isStringArray(operation.preRunCommands)) {
    throw new InvalidInputError('operationContext.preRunCommands must be a list of strings.');
  }
  const variables = operation?.environmentVariables;
  if (variables !== undefined && !isObject(variables)) throw new InvalidInputError('operationContext.environmentVariables must be an object.');
}

/**
 * Seals every secret value under the stack's data key: `{ "secret": "…" }` (Pulumi's wire form of a new secret)
 * becomes `{ "ciphertext": "<base64>" }`; a ciphertext must open under this stack's key (so one sealed for another
 * stack is refused); a plain string stays a plain value.
 */
export async function sealSettings(keys: StackKeyring, stack: StackRecord, settings: Json): Promise<Json> {
  const sealed = mergeSettings({}, settings);
  const slots: { holder: Json; key: string }[] = [];
  const variables = objectAt(sealed, ['operationContext', 'environmentVariables']);
  if (variables) for (const key of Object.keys(variables)) slots.push({ holder: variables, key });
  for (const path of SECRET_PATHS) {
    const holder = objectAt(sealed, path.slice(0, -1));
    if (holder && holder[path.at(-1)!] !== undefined) slots.push({ holder, key: path.at(-1)! });
  }
  const plaintexts: { holder: Json; key: string; value: string }[] = [];
  const ciphertexts: Uint8Array[] = [];
  for (const { holder, key } of slots) {
    const value = holder[key];
    if (typeof value === 'string') continue;
    if (!isObject(value)) throw new InvalidInputError(`The value of '${key.slice(0, 64)}' must be a string, { "secret": … } or { "ciphertext": … }.`);
    if (typeof value.ciphertext === 'string') ciphertexts.push(Buffer.from(value.ciphertext, 'base64'));
    else if (typeof value.secret === 'string') plaintexts.push({ holder, key, value: value.secret });
    else if (value.isSecret === false && typeof value.value === 'string') holder[key] = value.value;
    else throw new InvalidInputError(`The value of '${key.slice(0, 64)}' must be a string, { "secret": … } or { "ciphertext": … }.`);
  }
  if (ciphertexts.length > 0) await keys.decryptForStack(stack, ciphertexts);
  if (plaintexts.length > 0) {
    const sealedValues = await keys.encryptForStack(stack, plaintexts.map((p) => Buffer.from(p.value, 'utf8')));
    plaintexts.forEach((p, i) => (p.holder[p.key] = { ciphertext: Buffer.from(sealedValues[i]!).toString('base64') }));
  }
  return sealed;
}

/** Opens every sealed value of a settings document: only for the runner that runs it, never for a reader. */
export async function openSettingsSecrets(keys: StackKeyring, stack: StackRecord, settings: Json): Promise<Record<string, string>> {
  const variables = objectAt(settings, ['operationContext', 'environmentVariables']) ?? {};
  const names = Object.keys(variables).filter((name) => isObject(variables[name]));
  const opened = await keys.decryptForStack(
    stack,
    names.map((name) => Buffer.from(String((variables[name] as Json).ciphertext), 'base64')),
  );
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(variables)) if (typeof value === 'string') environment[name] = value;
  names.forEach((name, i) => (environment[name] = Buffer.from(opened[i]!).toString('utf8')));
  return environment;
}

/** `gitHub`'s push-to-deploy switches and path filter (Pulumi's `DeploymentSettingsGitHub`) and `pushWebhook`. */
function validatePushFields(settings: Json): void {
  const gitHub = settings.gitHub;
  if (gitHub !== undefined && !isObject(gitHub)) throw new InvalidInputError('gitHub must be an object.');
  for (const flag of ['deployCommits', 'previewPullRequests'] as const) {
    if (gitHub?.[flag] !== undefined && typeof gitHub[flag] !== 'boolean') throw new InvalidInputError(`gitHub.${flag} must be true or false.`);
  }
  if (gitHub?.paths !== undefined && !isStringArray(gitHub.paths)) throw new InvalidInputError('gitHub.paths must be a list of path patterns.');
  if (gitHub?.repository !== undefined && typeof gitHub.repository !== 'string') throw new InvalidInputError('gitHub.repository must be a string: organization/repository.');
  const hook = settings.pushWebhook;
  if (hook === undefined) return;
  if (!isObject(hook)) throw new InvalidInputError('pushWebhook must be an object: { "secret": …, "postResults": … }.');
  const secret = hook.secret;
  if (secret !== undefined && !(isObject(secret) && (typeof secret.ciphertext === 'string' || (typeof secret.secret === 'string' && secret.secret.length >= 16)))) {
    throw new InvalidInputError('pushWebhook.secret must be { "secret": "<at least 16 characters>" }: it is stored sealed and never returned.');
  }
  for (const key of Object.keys(hook)) {
    if (key !== 'secret' && key !== 'postResults') throw new InvalidInputError(`Unknown pushWebhook field '${key.slice(0, 64)}': expected secret or postResults.`);
  }
  validatePostResults(settings);
}

/**
 * Settings as readers see them: the push webhook's secret is never returned, not even sealed; `hasSecret` says one
 * is set (as Pulumi's webhooks do).
 */
export function publicSettings(settings: Json): Json {
  if (!isObject(settings.pushWebhook)) return settings;
  const { secret, ...rest } = settings.pushWebhook;
  return { ...settings, pushWebhook: { ...rest, hasSecret: secret !== undefined } };
}

/** A settings patch without what `publicSettings` adds, so a settings document read back and posted changes nothing. */
export function withoutReadOnly(patch: Json): Json {
  if (!isObject(patch.pushWebhook) || !('hasSecret' in patch.pushWebhook)) return patch;
  const { hasSecret: _ignored, ...rest } = patch.pushWebhook;
  return { ...patch, pushWebhook: rest };
}

/** The push webhook's sealed secret, when one is set. */
export function sealedWebhookSecret(settings: Json): Uint8Array | undefined {
  const secret = objectAt(settings, ['pushWebhook', 'secret']);
  return typeof secret?.ciphertext === 'string' ? Buffer.from(secret.ciphertext, 'base64') : undefined;
}

function objectAt(root: Json, path: readonly string[]): Json | undefined {
  let node: unknown = root;
  for (const key of path) {
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return isObject(node) ? node : undefined;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** `sourceContext.git` of a settings document, when it names a repository. */
export function gitSource(settings: Json): { repoUrl: string; branch?: string; commit?: string; repoDir?: string } | undefined {
  const git = objectAt(settings, ['sourceContext', 'git']);
  if (!git || typeof git.repoUrl !== 'string' || git.repoUrl === '') return undefined;
  return {
    repoUrl: git.repoUrl,
    branch: typeof git.branch === 'string' && git.branch !== '' ? git.branch : undefined,
    commit: typeof git.commit === 'string' && git.commit !== '' ? git.commit : undefined,
    repoDir: typeof git.repoDir === 'string' && git.repoDir !== '' ? git.repoDir : undefined,
  };
}
