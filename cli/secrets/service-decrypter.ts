/**
 * The `service` secrets provider of another stack: its ciphertexts open only through the decrypt endpoint of the
 * service (or the local data folder) that holds that stack, with the caller's credentials for it.
 */
import { formatStackRef, type StackRef } from '../../shared/core/names.js';
import type { Backend } from '../backend/backend.js';
import { backendKind, openBackend } from '../backend/open-backend.js';
import { UserError } from '../output/errors.js';
import { readCredentials } from '../credentials.js';
import type { SecretsDecrypter, ServiceProviderState } from './source-secrets.js';

/** A decrypter on `backend` for the stack `ref` (the backend stays open; its owner closes it). */
export function backendDecrypter(backend: Backend, ref: StackRef): SecretsDecrypter {
  return {
    description: `service ${backend.url} (stack ${formatStackRef(ref)})`,
    decrypt: async (ciphertexts) => (ciphertexts.length === 0 ? [] : backend.decrypt(ref, [...ciphertexts])),
  };
}

/**
 * Opens `service` providers: the current backend when the URL is its own, else a backend for that URL with the
 * token stored by `stackyard login <url>` (or `tokenFor`). Every backend it opened is closed by `close()`.
 */
export class ServiceDecrypters {
  private readonly opened = new Map<string, Promise<Backend>>();

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly current?: Backend,
    private readonly tokenFor?: (url: string) => string | undefined,
  ) {}

  readonly open = async (state: ServiceProviderState): Promise<SecretsDecrypter> => {
    const url = state.url.replace(/\/+$/, '');
    const ref = { org: state.owner, project: state.project, stack: state.stack };
    if (this.current && this.current.url.replace(/\/+$/, '') === url) return backendDecrypter(this.current, ref);
    let backend = this.opened.get(url);
    if (!backend) {
      backend = this.openUrl(url);
      this.opened.set(url, backend);
    }
    return backendDecrypter(await backend, ref);
  };

  /**
   * A token is only ever sent to the URL it was given for: `tokenFor`, STACKYARD_FROM_TOKEN, or the one stored by
   * `stackyard login <url>`; never the current backend's token (STACKYARD_ACCESS_TOKEN), which belongs elsewhere.
   */
  private async openUrl(url: string): Promise<Backend> {
    if (backendKind(url) === 'local') return openBackend(url, undefined);
    const stored = (await readCredentials(this.env)).accessTokens;
    const token = this.tokenFor?.(url) ?? (this.env.STACKYARD_FROM_TOKEN || stored[url]);
    if (!token) {
      throw new UserError(
        `the secrets were encrypted by stack keys of ${url}, and there is no access token for it`,
        `Set STACKYARD_FROM_TOKEN to a token of ${url} (or log in to it once with \`stackyard login ${url}\`).`,
      );
    }
    return openBackend(url, token);
  }

  async close(): Promise<void> {
    for (const backend of this.opened.values()) await (await backend.catch(() => undefined))?.close();
  }
}
