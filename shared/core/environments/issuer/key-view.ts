import type { KeyStanding, KeyState } from './key-schedule.js';

/** A signing key's standing as the API returns it (`/api/admin/oidc-issuer/keys`): times in RFC 3339. */
export interface IssuerKeyView {
  generation: number;
  kid: string;
  state: KeyState;
  signsFrom: string;
  retiresAt?: string;
}

/** The API form of a key's standing. */
export function issuerKeyView(standing: KeyStanding): IssuerKeyView {
  return {
    generation: standing.generation,
    kid: standing.kid,
    state: standing.state,
    signsFrom: new Date(standing.signsFrom).toISOString(),
    ...(standing.retiresAt === undefined ? {} : { retiresAt: new Date(standing.retiresAt).toISOString() }),
  };
}
