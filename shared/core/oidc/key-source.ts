import { importJWK, type JWK } from 'jose';
import { IssuerUnavailableError, OidcRefusalError } from './refusal.js';
import { IssuerFetchError } from './types.js';
import { type JsonFetcher } from '../kernel/options.js';

/** The signature algorithms accepted (docs/security.md); with the key type each needs. */
export const ACCEPTED_ALGORITHMS = { RS256: { kty: 'RSA' }, ES256: { kty: 'EC', crv: 'P-256' } } as const;
export type AcceptedAlgorithm = keyof typeof ACCEPTED_ALGORITHMS;

interface CachedKeys {
  keys: JWK[];
  fetchedAt: number;
  /** When an unknown key id last made us fetch again. */
  refetchedForKidAt?: number;
}

export interface KeySourceOptions {
  fetchJson: JsonFetcher;
  now: () => number;
  cacheMs: number;
  unknownKidRefetchMs: number;
}

/**
 * Issuers' signing keys: the discovery document (`<issuer>/.well-known/openid-configuration`) names `jwks_uri`,
 * whose key set is cached per issuer for `cacheMs`. A token signed with a key id the cached set lacks makes us fetch
 * the set again (the issuer rotated its keys), at most once per `unknownKidRefetchMs`, so a stream of made-up key
 * ids costs the issuer one request per interval. Only issuers some trust policy names ever get here.
 */
export class IssuerKeySource {
  private readonly cache = new Map<string, CachedKeys>();
  private readonly loading = new Map<string, Promise<CachedKeys>>();

  constructor(private readonly options: KeySourceOptions) {}

  /** The verification key for a token's header, or a refusal that names what is wrong with the key id. */
  async keyFor(issuer: string, header: { alg: AcceptedAlgorithm; kid?: string }): Promise<CryptoKey | Uint8Array> {
    const now = this.options.now();
    let cached = this.cache.get(issuer);
    let fresh = false;
    if (!cached || now - cached.fetchedAt >= this.options.cacheMs) {
      cached = await this.load(issuer);
      fresh = true;
    }
    let jwk = pickKey(cached.keys, header);
    if (!jwk && !fresh && (cached.refetchedForKidAt === undefined || now - cached.refetchedForKidAt >= this.options.unknownKidRefetchMs)) {
      const reloaded = await this.load(issuer);
      reloaded.refetchedForKidAt = now;
      jwk = pickKey(reloaded.keys, header);
    }
    if (!jwk) {
      throw new OidcRefusalError(
        header.kid === undefined
          ? `no key id (kid) in the ID token header, and issuer '${issuer}' does not publish exactly one ${header.alg} key`
          : `unknown key id (kid) '${header.kid.slice(0, 100)}': issuer '${issuer}' publishes no ${header.alg} signing key with that id`,
      );
    }
    try {
      return await importJWK(jwk, header.alg);
    } catch (error) {
      throw new OidcRefusalError(`issuer '${issuer}' publishes key '${header.kid ?? ''}' in a form that cannot be used: ${(error as Error).message}`);
    }
  }

  private load(issuer: string): Promise<CachedKeys> {
    let pending = this.loading.get(issuer);
    if (!pending) {
      pending = this.fetchKeys(issuer).finally(() => this.loading.delete(issuer));
      this.loading.set(issuer, pending);
    }
    return pending;
  }

  private async fetchKeys(issuer: string): Promise<CachedKeys> {
    const discoveryUrl = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const discovery = await this.fetch(discoveryUrl, `issuer '${issuer}' discovery document`);
    const document = (discovery ?? {}) as { issuer?: unknown; jwks_uri?: unknown };
    if (document.issuer !== issuer) {
      throw new OidcRefusalError(
        `the discovery document of '${issuer}' names issuer ${(JSON.stringify(document.issuer) ?? 'nothing').slice(0, 200)}: the two must be identical (OpenID Connect Discovery §4.3)`,
      );
    }
    if (typeof document.jwks_uri !== 'string' || !document.jwks_uri.startsWith('https://')) {
      throw new OidcRefusalError(`the discovery document of '${issuer}' has no https jwks_uri`);
    }
    const set = (await this.fetch(document.jwks_uri, `issuer '${issuer}' key set (jwks_uri)`)) as { keys?: unknown } | null;
    if (!set || !Array.isArray(set.keys)) throw new OidcRefusalError(`the key set of '${issuer}' has no "keys" array`);
    const entry: CachedKeys = { keys: set.keys.filter((key): key is JWK => !!key && typeof key === 'object'), fetchedAt: this.options.now() };
    this.cache.set(issuer, { ...entry, refetchedForKidAt: this.cache.get(issuer)?.refetchedForKidAt });
    return this.cache.get(issuer)!;
  }

  private async fetch(url: string, what: string): Promise<unknown> {
    try {
      return await this.options.fetchJson(url);
    } catch (error) {
      if (error instanceof IssuerFetchError) throw new IssuerUnavailableError(`Could not fetch the ${what} from ${url.slice(0, 300)}: ${error.message}. Retry later.`);
      throw error;
    }
  }
}

/** The key a header designates: by `kid` when given, else the only suitable key; of the algorithm's key type. */
function pickKey(keys: JWK[], header: { alg: AcceptedAlgorithm; kid?: string }): JWK | undefined {
  const needs: { kty: string; crv?: string } = ACCEPTED_ALGORITHMS[header.alg];
  const suitable = keys.filter(
    (key) =>
      key.kty === needs.kty &&
      (needs.crv === undefined || key.crv === needs.crv) &&
      (key.use === undefined || key.use === 'sig') &&
      (key.alg === undefined || key.alg === header.alg),
  );
  if (header.kid !== undefined) return suitable.find((key) => key.kid === header.kid);
  return suitable.length === 1 ? suitable[0] : undefined;
}
