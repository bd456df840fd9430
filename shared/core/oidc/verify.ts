import { compactVerify, decodeJwt, decodeProtectedHeader, errors, type JWTPayload } from 'jose';
import { ACCEPTED_ALGORITHMS, type AcceptedAlgorithm, type IssuerKeySource } from './key-source.js';
import { OidcRefusalError } from './refusal.js';

/** An ID token whose signature, issuer and times checked out; audience and claims are the policies' to judge. */
export interface VerifiedIdToken {
  issuer: string;
  subject: string;
  audiences: string[];
  claims: JWTPayload;
}

export interface VerifyOptions {
  keys: IssuerKeySource;
  /** Epoch milliseconds. */
  now: number;
  clockSkewSeconds: number;
  /** Whether any trust policy names this issuer; only those issuers' keys are ever fetched. */
  isTrustedIssuer(issuer: string): boolean;
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/**
 * Checks an ID token (RFC 7519, OpenID Connect Core §3.1.3.7) in the order that keeps work and fetches for tokens
 * that deserve them: shape and algorithm (RS256 or ES256 only, so `none` and HMAC tricks are refused before any
 * key is touched), a trusted `iss`, the signature against the issuer's published key, then `exp`, `nbf` and `iat`
 * with `clockSkewSeconds` of tolerance. Every refusal names the check that failed.
 */
export async function verifyIdToken(token: string, options: VerifyOptions): Promise<VerifiedIdToken> {
  let header;
  let unverified;
  try {
    header = decodeProtectedHeader(token);
    unverified = decodeJwt(token);
  } catch {
    throw new OidcRefusalError('the subject_token is not a JWT (an ID token is three base64url parts separated by dots)');
  }
  // The header is the caller's JSON: its fields are checked for type before anything reads them as text.
  if (header.alg !== undefined && typeof header.alg !== 'string') throw new OidcRefusalError('the ID token header\'s "alg" must be a string');
  if (header.kid !== undefined && typeof header.kid !== 'string') throw new OidcRefusalError('the ID token header\'s "kid" must be a string');
  const alg = header.alg ?? '';
  if (alg.toLowerCase() === 'none') throw new OidcRefusalError("alg 'none' is refused: ID tokens must be signed with RS256 or ES256");
  if (!(alg in ACCEPTED_ALGORITHMS)) throw new OidcRefusalError(`alg '${alg.slice(0, 20)}' is refused: ID tokens must be signed with RS256 or ES256`);
  const issuer = unverified.iss;
  if (typeof issuer !== 'string' || issuer === '') throw new OidcRefusalError('the ID token has no issuer (iss)');
  if (!options.isTrustedIssuer(issuer)) {
    throw new OidcRefusalError(`issuer (iss) '${issuer.slice(0, 200)}' is not trusted: no OIDC trust policy of the organization names it`);
  }

  let payload: JWTPayload;
  try {
    const verified = await compactVerify(
      token,
      (protectedHeader) => options.keys.keyFor(issuer, { alg: alg as AcceptedAlgorithm, ...(protectedHeader.kid !== undefined ? { kid: protectedHeader.kid } : {}) }),
      { algorithms: Object.keys(ACCEPTED_ALGORITHMS) },
    );
    payload = JSON.parse(new TextDecoder().decode(verified.payload)) as JWTPayload;
  } catch (error) {
    if (error instanceof OidcRefusalError || !(error instanceof errors.JOSEError)) throw error;
    if (error instanceof errors.JWSSignatureVerificationFailed) {
      throw new OidcRefusalError(`bad signature: the ID token was not signed by the key '${header.kid ?? ''}' that issuer '${issuer}' publishes`);
    }
    throw new OidcRefusalError(`the ID token could not be verified: ${error.message}`);
  }

  const now = options.now / 1000;
  const skew = options.clockSkewSeconds;
  if (typeof payload.exp !== 'number') throw new OidcRefusalError('the ID token has no expiry (exp)');
  if (now > payload.exp + skew) throw new OidcRefusalError(`the ID token expired at ${iso(payload.exp)} (exp; ${skew} s of clock skew allowed)`);
  if (payload.nbf !== undefined) {
    if (typeof payload.nbf !== 'number') throw new OidcRefusalError('the ID token not-before time (nbf) is not a number');
    if (now + skew < payload.nbf) throw new OidcRefusalError(`the ID token is not valid before ${iso(payload.nbf)} (nbf; ${skew} s of clock skew allowed)`);
  }
  if (typeof payload.iat !== 'number') throw new OidcRefusalError('the ID token has no issue time (iat)');
  if (now + skew < payload.iat) throw new OidcRefusalError(`the ID token was issued in the future, at ${iso(payload.iat)} (iat; ${skew} s of clock skew allowed)`);
  if (typeof payload.sub !== 'string' || payload.sub === '') throw new OidcRefusalError('the ID token has no subject (sub)');
  const audiences = typeof payload.aud === 'string' ? [payload.aud] : Array.isArray(payload.aud) ? payload.aud.filter((a) => typeof a === 'string') : [];
  if (audiences.length === 0) throw new OidcRefusalError('the ID token has no audience (aud)');
  return { issuer, subject: payload.sub, audiences, claims: payload };
}
