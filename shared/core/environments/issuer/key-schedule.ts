/**
 * When each of the issuer's signing keys signs, is published and drops out: pure arithmetic on the chain of key
 * generations, so every instance reading the same chain at the same time agrees without talking to the others.
 *
 * Timeline of a rotation made at T (generation g+1 after g):
 *
 *   T                      key g+1 is published in the key set; g still signs
 *   T + PUBLISH_AHEAD      g+1 signs, on every instance (each one's copy of the chain is younger than PUBLISH_AHEAD,
 *                          so it has g+1), and every key set a relying party cached from any instance has it
 *   … + ID_TOKEN_LIFETIME  the last token g signed has expired
 *   … + CLOCK_SKEW         even for a relying party whose clock is behind ours: g leaves the key set
 */

/** How long a signed ID token is valid: long enough for one STS call. */
export const ID_TOKEN_LIFETIME_SECONDS = 5 * 60;
/** How long an instance keeps the chain it read before reading it again. */
export const SIGNER_REFRESH_SECONDS = 60;
/** How long relying parties may cache the key set (the JWKS route's `max-age`). */
export const KEY_SET_CACHE_SECONDS = 300;
/**
 * A new key is published this long before it signs, so no key set a relying party cached lacks it when its first token
 * arrives: the cache time, plus the time an instance may still serve the chain it read before the rotation.
 */
export const PUBLISH_AHEAD_SECONDS = KEY_SET_CACHE_SECONDS + SIGNER_REFRESH_SECONDS;
/** The clock difference between us and a relying party that a token's expiry must survive. */
export const CLOCK_SKEW_SECONDS = 300;
/** How long after its successor starts signing a key stays published. */
export const RETIRE_AFTER_SECONDS = ID_TOKEN_LIFETIME_SECONDS + CLOCK_SKEW_SECONDS;

/** One generation of the chain as the schedule sees it. */
export interface ScheduledKey {
  generation: number;
  kid: string;
  /** Epoch ms from which it signs. */
  signsFrom: number;
}

/** Where a key stands at a moment. */
export type KeyState = 'next' | 'signing' | 'previous' | 'retired';

/** A key's state, and the moments that bound it (epoch ms). */
export interface KeyStanding {
  generation: number;
  kid: string;
  state: KeyState;
  signsFrom: number;
  /** When it stops being published; absent while no successor signs or is scheduled. */
  retiresAt?: number;
}

/** The chain's keys, oldest first, each with its state at `now`. */
export function keyStandings(chain: readonly ScheduledKey[], now: number): KeyStanding[] {
  const ordered = [...chain].sort((a, b) => a.generation - b.generation);
  const signer = signerOf(ordered, now);
  return ordered.map((key, index) => {
    const successor = ordered[index + 1];
    const retiresAt = successor === undefined ? undefined : successor.signsFrom + RETIRE_AFTER_SECONDS * 1000;
    const state: KeyState =
      key === signer ? 'signing' : key.signsFrom > now ? 'next' : retiresAt !== undefined && retiresAt <= now ? 'retired' : 'previous';
    return { generation: key.generation, kid: key.kid, state, signsFrom: key.signsFrom, ...(retiresAt === undefined ? {} : { retiresAt }) };
  });
}

/** The key that signs at `now`: the newest whose time has come (undefined only for an empty chain, or one all ahead). */
export function signerOf<K extends ScheduledKey>(chain: readonly K[], now: number): K | undefined {
  let signer: K | undefined;
  for (const key of chain) if (key.signsFrom <= now && (signer === undefined || key.generation > signer.generation)) signer = key;
  return signer;
}

/** Whether a key in this standing belongs in the published key set. */
export const isPublished = (standing: KeyStanding): boolean => standing.state !== 'retired';
