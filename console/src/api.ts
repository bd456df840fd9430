/** The one client of the console: same-origin fetch with the session cookie, CSRF header on changes, typed errors. */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface Session {
  login: string;
  admin: boolean;
  /** `role` is absent for team and organization tokens. */
  orgs: { name: string; role?: 'admin' | 'member' | 'viewer' }[];
  csrfToken?: string;
}

let csrfToken: string | undefined;

export function rememberCsrf(token: string | undefined): void {
  csrfToken = token;
}

/** Calls an API route; a 401 sends the browser to the sign-in page (keeping where it was). */
export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const method = init.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && method !== 'HEAD' && csrfToken) headers['x-stackyard-csrf'] = csrfToken;
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  if (!response.ok) throw failure(response, text);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** A problem the service found in a definition (ESC's diagnostic), with its 1-based line and column when it has one. */
export interface Diagnostic {
  severity: 'error' | 'warning';
  summary: string;
  range?: { begin: { line: number; column: number } };
  path: string;
}

/** A refused save: the API's error with the definition's diagnostics (400), if any. */
export class SaveError extends ApiError {
  constructor(
    status: number,
    message: string,
    readonly diagnostics: Diagnostic[],
  ) {
    super(status, message);
  }
}

/**
 * Reads a definition (YAML) with the etag a save must send back, so that a save another one beat is refused (409)
 * rather than overwriting it.
 */
export async function readDefinition(path: string): Promise<{ yaml: string; etag: string }> {
  const response = await fetch(path, { headers: { accept: 'application/x-yaml, application/json' }, credentials: 'same-origin' });
  const text = await response.text();
  if (!response.ok) throw failure(response, text);
  return { yaml: text, etag: response.headers.get('etag') ?? '' };
}

/** Saves a definition (raw YAML, as ESC's client sends it) if it is still at `etag`; its new revision and warnings. */
export async function saveDefinition(path: string, yaml: string, etag: string): Promise<{ revision: number; diagnostics: Diagnostic[] }> {
  const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/x-yaml', 'if-match': etag };
  if (csrfToken) headers['x-stackyard-csrf'] = csrfToken;
  const response = await fetch(path, { method: 'PATCH', headers, credentials: 'same-origin', body: yaml });
  const text = await response.text();
  if (!response.ok) {
    const refused = failure(response, text);
    let diagnostics: Diagnostic[] = [];
    try {
      diagnostics = (JSON.parse(text) as { diagnostics?: Diagnostic[] }).diagnostics ?? [];
    } catch {
      // No diagnostics: the message says it all.
    }
    throw new SaveError(refused.status, refused.message, diagnostics);
  }
  const body = (text ? JSON.parse(text) : {}) as { diagnostics?: Diagnostic[] };
  return { revision: Number(response.headers.get('pulumi-esc-revision')), diagnostics: body.diagnostics ?? [] };
}

/** The API's error (`{code, message}`) as an ApiError; the status alone when the body is not that. */
function failure(response: Response, text: string): ApiError {
  let message: string | undefined;
  try {
    message = (JSON.parse(text) as { message?: string }).message;
  } catch {
    // Not JSON (a proxy's page): the status says it.
  }
  return new ApiError(response.status, message ?? `${response.status} ${response.statusText}`);
}

const encoded = (...names: string[]) => names.map(encodeURIComponent).join('/');

/** ESC's route of an environment (`/api/esc/environments/<org>/<project>/<env>`). */
export function environmentApi(org: string, project: string, env: string): string {
  return `/api/esc/environments/${encoded(org, project, env)}`;
}

/** The console's own reads of an environment (`/api/console/environments/<org>/<project>/<env>`). */
export function environmentConsoleApi(org: string, project: string, env: string): string {
  return `/api/console/environments/${encoded(org, project, env)}`;
}

/** The console page of an environment (Pulumi Cloud's layout: `/<org>/esc/<project>/<env>`). */
export function environmentPage(org: string, project: string, env: string): string {
  return `/${encodeURIComponent(org)}/esc/${encoded(project, env)}`;
}

/** `/api/stacks/<org>/<project>/<stack>` with each name encoded. */
export function stackApi(org: string, project: string, stack: string): string {
  return `/api/stacks/${encodeURIComponent(org)}/${encodeURIComponent(project)}/${encodeURIComponent(stack)}`;
}

/** The console page of a stack (Pulumi Cloud's layout). */
export function stackPage(org: string, project: string, stack: string): string {
  return `/${encodeURIComponent(org)}/${encodeURIComponent(project)}/${encodeURIComponent(stack)}`;
}
