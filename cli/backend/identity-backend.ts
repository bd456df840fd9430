import type { OrgRole } from '../../shared/ports/identity-store.js';

export interface TokenInfo {
  id: string;
  description: string;
  login?: string;
  /** Epoch milliseconds. */
  createdAt?: number;
  expiresAt?: number;
  lastUsed?: number;
}

/** Users, organizations, members and personal tokens (`stackyard admin …`, `stackyard access token …`). */
export interface IdentityBackend {
  createUser(user: { login: string; name?: string; email?: string; admin?: boolean }): Promise<void>;
  createOrg(name: string): Promise<void>;
  listOrgs(): Promise<{ name: string; role: string }[]>;
  addMember(org: string, login: string, role: OrgRole): Promise<void>;
  /** The token value exists only in this answer. */
  createToken(request: { description: string; login?: string; expiresInDays?: number }): Promise<{ id: string; token: string }>;
  listTokens(login?: string): Promise<TokenInfo[]>;
  revokeToken(id: string, login?: string): Promise<void>;
}
