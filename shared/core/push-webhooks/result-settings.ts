/**
 * `pushWebhook.postResults` of a stack's deployment settings (Stackyard's own; docs/deployments.md, "Results on pull
 * requests"): where the result of a pull request's `preview` is posted back. Pulumi Cloud posts through its GitHub
 * app, which has no settings of its own; here a token (sealed like every secret of the settings), the git host's API
 * base URL (GitHub Enterprise, self-hosted GitLab) and the repository say where. Absent or `false`: nothing is posted.
 */
import { InvalidInputError } from '../errors.js';

/** The git hosts results are posted to. */
export type ResultProvider = 'github' | 'gitlab';

/** The public API of each host, when `apiUrl` is not given. */
export const DEFAULT_API_URLS: Readonly<Record<ResultProvider, string>> = {
  github: 'https://api.github.com',
  gitlab: 'https://gitlab.com/api/v4',
};

/** Where and how results are posted, read from valid settings; the token still sealed. */
export interface PostResultsConfig {
  provider: ResultProvider;
  apiUrl: string;
  /** GitHub: `owner/repo`; GitLab: `group/project` or the project's numeric id. */
  repository: string;
  sealedToken: Uint8Array;
}

const FIELDS = new Set(['provider', 'apiUrl', 'repository', 'token']);
const GITHUB_REPOSITORY = /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/;
const GITLAB_REPOSITORY = /^([0-9]{1,20}|[A-Za-z0-9_.-]{1,255}(\/[A-Za-z0-9_.-]{1,255}){1,20})$/;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `gitHub.repository` (Pulumi's field): the repository of GitHub results when `postResults` names none. */
function gitHubRepository(settings: Json): string | undefined {
  const repository = isObject(settings.gitHub) ? settings.gitHub.repository : undefined;
  return typeof repository === 'string' && repository !== '' ? repository : undefined;
}

/** Refuses a `postResults` that could not be posted with, saying what to set. `false` (or absent) is off. */
export function validatePostResults(settings: Json): void {
  const hook = isObject(settings.pushWebhook) ? settings.pushWebhook : {};
  const post = hook.postResults;
  if (post === undefined || post === false) return;
  if (!isObject(post)) throw new InvalidInputError('pushWebhook.postResults must be false or { "provider": "github" | "gitlab", "token": { "secret": … }, "repository", "apiUrl" }.');
  for (const key of Object.keys(post)) {
    if (!FIELDS.has(key)) throw new InvalidInputError(`Unknown pushWebhook.postResults field '${key.slice(0, 64)}': expected one of ${[...FIELDS].join(', ')}.`);
  }
  if (post.provider !== 'github' && post.provider !== 'gitlab') throw new InvalidInputError('pushWebhook.postResults.provider must be "github" or "gitlab".');
  const token = post.token;
  if (!(isObject(token) && (typeof token.ciphertext === 'string' || (typeof token.secret === 'string' && token.secret !== '')))) {
    throw new InvalidInputError('pushWebhook.postResults.token must be { "secret": "<an API token of the git host>" }: it is stored sealed.');
  }
  if (post.apiUrl !== undefined) apiUrlOf(post.apiUrl);
  const repository = post.repository ?? (post.provider === 'github' ? gitHubRepository(settings) : undefined);
  const shape = post.provider === 'github' ? GITHUB_REPOSITORY : GITLAB_REPOSITORY;
  if (typeof repository !== 'string' || !shape.test(repository) || repository.split('/').some((part) => part === '.' || part === '..')) {
    throw new InvalidInputError(
      post.provider === 'github'
        ? 'pushWebhook.postResults.repository (or gitHub.repository) must name the GitHub repository as owner/repo.'
        : 'pushWebhook.postResults.repository must name the GitLab project as group/project or by its numeric id.',
    );
  }
}

function apiUrlOf(value: unknown): string {
  let parsed: URL | undefined;
  try {
    parsed = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || parsed.username || parsed.password || parsed.search || parsed.hash) {
    throw new InvalidInputError('pushWebhook.postResults.apiUrl must be the API base URL, as https://github.example.com/api/v3 (no credentials, no query).');
  }
  return parsed.href.replace(/\/+$/, '');
}

/** Where results of these (valid, sealed) settings are posted, or `undefined` when they are not. */
export function postResultsConfig(settings: Json): PostResultsConfig | undefined {
  const hook = isObject(settings.pushWebhook) ? settings.pushWebhook : {};
  const post = hook.postResults;
  if (!isObject(post) || !isObject(post.token) || typeof post.token.ciphertext !== 'string') return undefined;
  const provider = post.provider as ResultProvider;
  return {
    provider,
    apiUrl: post.apiUrl === undefined ? DEFAULT_API_URLS[provider] : apiUrlOf(post.apiUrl),
    repository: String(post.repository ?? gitHubRepository(settings)),
    sealedToken: Buffer.from(post.token.ciphertext, 'base64'),
  };
}
