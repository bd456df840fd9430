import { UnauthorizedError, UnavailableError } from '../errors.js';

/** An ID token or exchange request that failed a check; the message names the check (sent to the caller, audited). */
export class OidcRefusalError extends UnauthorizedError {}

/** The issuer's discovery document or key set could not be fetched; the exchange may succeed later. */
export class IssuerUnavailableError extends UnavailableError {
  override readonly retryAfterSeconds = 10;
}
