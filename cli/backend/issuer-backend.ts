/**
 * The environments' OIDC issuer's signing keys, for the operator (`stackyard admin oidc-key …`; docs/environments.md,
 * "Rotating the issuer's signing key"). On the local backend they are the keys in its own data folder.
 */
import { issuerKeyView, type IssuerKeyView } from '../../shared/core/environments/issuer/key-view.js';
import type { Principal } from '../../shared/core/kernel/principal.js';
import type { ApiClient } from '../api-client/api-client.js';
import type { LocalServices } from './local-services.js';

/** What `stackyard admin oidc-key …` asks of a backend. */
export interface IssuerBackend {
  /** The keys that may still matter, oldest first, each with its state now. */
  keys(): Promise<IssuerKeyView[]>;
  /** Makes the next key; the keys after the rotation. */
  rotate(): Promise<IssuerKeyView[]>;
}

const PATH = '/api/admin/oidc-issuer/keys';

/** The service's issuer key routes (site administrators). */
export function httpIssuerBackend(client: ApiClient): IssuerBackend {
  return {
    async keys() {
      return (await client.request<{ keys: IssuerKeyView[] }>({ method: 'GET', path: PATH, operation: 'list OIDC issuer keys' })).keys;
    },
    async rotate() {
      return (await client.request<{ keys: IssuerKeyView[] }>({ method: 'POST', path: PATH, operation: 'rotate the OIDC issuer key' })).keys;
    },
  };
}

/** The local backend's in-process environment service. */
export function localIssuerBackend(services: Pick<LocalServices, 'environments'>, principal: Principal): IssuerBackend {
  return {
    async keys() {
      return (await (await services.environments()).issuerKeys(principal)).map(issuerKeyView);
    },
    async rotate() {
      return (await (await services.environments()).rotateIssuerKey(principal)).map(issuerKeyView);
    },
  };
}
