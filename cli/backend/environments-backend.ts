import type { ApiClient } from '../api-client/api-client.js';
import type { EnvironmentRef } from '../../shared/core/names.js';
import type { Principal } from '../../shared/core/kernel/principal.js';
import type { EscEnvironment } from '../../shared/esc/index.js';
import type { LocalServices } from './local-services.js';

/** Opening environments on a backend: the same core use case on the service (over HTTP) and in process (`login --local`). */
export interface EnvironmentsBackend {
  /** Opens a version of an environment (`undefined`: the latest) and returns its values, secrets revealed and marked. */
  open(ref: EnvironmentRef, version: string | undefined): Promise<EscEnvironment>;
}

/** ESC's open route, as the `pulumi` and `esc` CLIs call it: `POST {env}/open` for a session, then `GET {env}/open/{id}`. */
export function httpEnvironmentsBackend(client: ApiClient): EnvironmentsBackend {
  return {
    async open(ref, version) {
      const path = `/api/esc/environments/${ref.org}/${ref.project}/${ref.name}`;
      const opened = version === undefined ? `${path}/open` : `${path}/versions/${encodeURIComponent(version)}/open`;
      const { id } = await client.request<{ id: string }>({ method: 'POST', path: opened, operation: 'open environment' });
      return client.request<EscEnvironment>({ method: 'GET', path: `${path}/open/${id}`, operation: 'read opened environment' });
    },
  };
}

/** The local backend's in-process environment service. */
export function localEnvironmentsBackend(services: Pick<LocalServices, 'environments'>, principal: Principal): EnvironmentsBackend {
  return {
    async open(ref, version) {
      const service = await services.environments();
      const { id } = await service.open(principal, ref, version);
      return (await service.readOpen(principal, ref, id)) as EscEnvironment;
    },
  };
}
