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
  const body = text ? (JSON.parse(text) as unknown) : undefined;
  if (!response.ok) {
    const message = (body as { message?: string } | undefined)?.message ?? `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, message);
  }
  return body as T;
}

/** `/api/stacks/<org>/<project>/<stack>` with each name encoded. */
export function stackApi(org: string, project: string, stack: string): string {
  return `/api/stacks/${encodeURIComponent(org)}/${encodeURIComponent(project)}/${encodeURIComponent(stack)}`;
}

/** The console page of a stack (Pulumi Cloud's layout). */
export function stackPage(org: string, project: string, stack: string): string {
  return `/${encodeURIComponent(org)}/${encodeURIComponent(project)}/${encodeURIComponent(stack)}`;
}
