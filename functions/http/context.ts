import { validateStackRef, type StackRef } from '../../shared/core/names.js';
import type { Principal } from '../../shared/core/kernel/principal.js';
import type { Services } from '../../shared/core/compose/types.js';
import { authenticate, updateToken } from './auth.js';
import { decodeBody, parseJsonBody } from './decode.js';
import type { HttpRequest } from './types.js';

/** What a route handler gets: the request, its path parameters, the services and lazily decoded parts. */
export interface RouteContext {
  request: HttpRequest;
  params: Readonly<Record<string, string>>;
  services: Services;
  /** The decoded (gunzipped) body bytes, exactly as sent. */
  rawBody(): Promise<Buffer>;
  /** The decoded body parsed as JSON; `undefined` for an empty body. */
  jsonBody(): Promise<unknown>;
  /** The caller of an API-token route (401 without a valid `token`). */
  principal(): Promise<Principal>;
  /** The login `principal()` resolved to, once it has; for the access log. */
  caller(): string | undefined;
  /** The lease token of an update-token route (401 when absent). */
  updateToken(): string;
  /** `{orgName}/{projectName}/{stackName}` from the path, validated (400 for names the service never issues). */
  stackRef(): StackRef;
}

export function createRouteContext(request: HttpRequest, params: Record<string, string>, services: Services): RouteContext {
  let raw: Promise<Buffer> | undefined;
  let principal: Promise<Principal> | undefined;
  let login: string | undefined;
  const rawBody = () => (raw ??= decodeBody(request));
  return {
    request,
    params,
    services,
    rawBody,
    jsonBody: async () => parseJsonBody(await rawBody()),
    principal: () =>
      (principal ??= authenticate(request, services).then((resolved) => ((login = resolved.login), resolved))),
    caller: () => login,
    updateToken: () => updateToken(request),
    stackRef: () =>
      validateStackRef({ org: params.orgName ?? '', project: params.projectName ?? '', stack: params.stackName ?? '' }),
  };
}
