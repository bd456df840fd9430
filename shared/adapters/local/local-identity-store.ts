import { ConflictError, InvalidInputError, NotFoundError, OidcPolicyLimitError } from '../../core/errors.js';
import type { DefaultStackPermission } from '../../core/kernel/permissions.js';
import type { IdentityStore, Membership, OidcPolicyRecord, OrgRecord, OrgRole, TeamRecord, TokenRecord, UserRecord } from '../../ports/index.js';
import { safeSegment, type DataDir } from './files.js';

const HASH = /^[0-9a-f]{64}$/;
const MEMBERS_LOCK = 'identity-members';
const OIDC_POLICIES_LOCK = 'identity-oidc-policies';

/**
 * `identity/users/<login>.json`, `identity/orgs/<name>.json`, `identity/members/<login>/<org>.json`,
 * `identity/tokens/<hash>.json` (looked up by hash on every request) and `identity/token-ids/<login>/<id>.json`
 * (listing and revoking by public id). Token writes hold the `identity-tokens` lock so both files change together.
 * Teams are `identity/teams/<org>/<team>.json`; membership, organization and team changes hold `identity-members`.
 * OIDC trust policies are `identity/oidc-policies/<org>/<id>.json`, created exclusively; creates and deletes hold
 * `identity-oidc-policies`, so the per-organization cap is counted and kept in one step.
 */
export class LocalIdentityStore implements IdentityStore {
  /** `now`: the clock that decides which tokens have expired (epoch milliseconds). */
  constructor(
    private readonly dir: DataDir,
    private readonly now: () => number,
  ) {}

  async createUser(user: UserRecord): Promise<UserRecord> {
    await this.dir.createJson(this.userPath(user.login), user, `User '${user.login}'`);
    return user;
  }

  async getUser(login: string): Promise<UserRecord> {
    return this.dir.mustReadJson<UserRecord>(this.userPath(login), `User '${login}'`);
  }

  async putUser(user: UserRecord): Promise<UserRecord> {
    await this.dir.writeJson(this.userPath(user.login), user);
    return user;
  }

  async createOrg(org: OrgRecord): Promise<OrgRecord> {
    await this.dir.createJson(this.orgPath(org.name), org, `Organization '${org.name}'`);
    return org;
  }

  async getOrg(name: string): Promise<OrgRecord> {
    return this.dir.mustReadJson<OrgRecord>(this.orgPath(name), `Organization '${name}'`);
  }

  async addMember(membership: Membership): Promise<void> {
    const path = this.memberPath(membership.org, membership.login);
    await this.dir.createJson(path, membership, `Membership of '${membership.login}' in '${membership.org}'`);
  }

  async setMemberRole(org: string, login: string, role: OrgRole): Promise<void> {
    const path = this.memberPath(org, login);
    await this.dir.withLock(MEMBERS_LOCK, async () => {
      await this.dir.mustReadJson<Membership>(path, `Membership of '${login}' in '${org}'`);
      await this.dir.writeJson(path, { org, login, role });
    });
  }

  async removeMember(org: string, login: string): Promise<void> {
    const path = this.memberPath(org, login);
    await this.dir.withLock(MEMBERS_LOCK, async () => {
      await this.dir.mustReadJson<Membership>(path, `Membership of '${login}' in '${org}'`);
      await this.dir.remove(path);
    });
  }

  async listMembers(org: string): Promise<Membership[]> {
    const file = `${safeSegment(org, 'organization')}.json`;
    const result: Membership[] = [];
    for (const login of await this.dir.list(this.dir.path('identity', 'members'))) {
      const m = await this.dir.readJson<Membership>(this.dir.path('identity', 'members', login, file));
      if (m) result.push(m);
    }
    return result.sort((a, b) => (a.login < b.login ? -1 : a.login > b.login ? 1 : 0));
  }

  async setDefaultStackPermission(org: string, permission: DefaultStackPermission): Promise<void> {
    await this.dir.withLock(MEMBERS_LOCK, async () => {
      const record = await this.getOrg(org);
      await this.dir.writeJson(this.orgPath(org), { ...record, defaultStackPermission: permission });
    });
  }

  async createTeam(team: TeamRecord): Promise<void> {
    const record: TeamRecord = { ...team, members: [...new Set(team.members)].sort() };
    await this.dir.createJson(this.teamPath(team.org, team.name), record, `Team '${team.name}' of '${team.org}'`);
  }

  async getTeam(org: string, name: string): Promise<TeamRecord> {
    return this.dir.mustReadJson<TeamRecord>(this.teamPath(org, name), `Team '${name}' of '${org}'`);
  }

  async listTeams(org: string): Promise<TeamRecord[]> {
    const segment = safeSegment(org, 'organization');
    const result: TeamRecord[] = [];
    for (const file of await this.dir.list(this.dir.path('identity', 'teams', segment))) {
      const team = await this.dir.readJson<TeamRecord>(this.dir.path('identity', 'teams', segment, file));
      if (team) result.push(team);
    }
    return result;
  }

  async deleteTeam(org: string, name: string): Promise<void> {
    const path = this.teamPath(org, name);
    await this.dir.withLock(MEMBERS_LOCK, async () => {
      await this.dir.mustReadJson<TeamRecord>(path, `Team '${name}' of '${org}'`);
      await this.dir.remove(path);
    });
  }

  async changeTeamMember(org: string, name: string, login: string, action: 'add' | 'remove'): Promise<void> {
    const path = this.teamPath(org, name);
    safeSegment(login, 'login');
    await this.dir.withLock(MEMBERS_LOCK, async () => {
      const team = await this.dir.mustReadJson<TeamRecord>(path, `Team '${name}' of '${org}'`);
      const members = new Set(team.members);
      if (action === 'add') members.add(login);
      else members.delete(login);
      await this.dir.writeJson(path, { ...team, members: [...members].sort() });
    });
  }

  /** Counted and created under the `identity-oidc-policies` lock, so concurrent creates (any process) never pass the cap. */
  async createOidcPolicy(policy: OidcPolicyRecord, maxPerOrg: number): Promise<void> {
    const path = this.oidcPolicyPath(policy.org, policy.id);
    await this.dir.withLock(OIDC_POLICIES_LOCK, async () => {
      const existing = await this.dir.list(this.dir.path('identity', 'oidc-policies', safeSegment(policy.org, 'organization')));
      if (existing.length >= maxPerOrg) throw new OidcPolicyLimitError(maxPerOrg);
      await this.dir.createJson(path, policy, `OIDC trust policy ${policy.id} of '${policy.org}'`);
    });
  }

  async listOidcPolicies(org: string): Promise<OidcPolicyRecord[]> {
    const segment = safeSegment(org, 'organization');
    const result: OidcPolicyRecord[] = [];
    for (const file of await this.dir.list(this.dir.path('identity', 'oidc-policies', segment))) {
      const policy = await this.dir.readJson<OidcPolicyRecord>(this.dir.path('identity', 'oidc-policies', segment, file));
      if (policy) result.push(policy);
    }
    return result.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  }

  async deleteOidcPolicy(org: string, id: string): Promise<void> {
    const path = this.oidcPolicyPath(org, id);
    await this.dir.withLock(OIDC_POLICIES_LOCK, async () => {
      await this.dir.mustReadJson<OidcPolicyRecord>(path, `OIDC trust policy ${id} of '${org}'`);
      await this.dir.remove(path);
    });
  }

  async touchToken(tokenHash: string, at: number, minIntervalMs: number): Promise<void> {
    if (typeof tokenHash !== 'string' || !HASH.test(tokenHash)) return;
    const isDue = (token: TokenRecord | undefined): token is TokenRecord =>
      token !== undefined && (token.lastUsedAt === undefined || token.lastUsedAt <= at - minIntervalMs);
    // Most touches find the token used recently: a read answers them, without queueing for the lock.
    if (!isDue(await this.dir.readJson<TokenRecord>(this.hashPath(tokenHash)))) return;
    await this.dir.withLock('identity-tokens', async () => {
      const token = await this.dir.readJson<TokenRecord>(this.hashPath(tokenHash));
      if (!isDue(token)) return;
      await this.dir.writeJson(this.hashPath(tokenHash), { ...token, lastUsedAt: at });
    });
  }

  async listMemberships(login: string): Promise<Membership[]> {
    const dir = this.dir.path('identity', 'members', safeSegment(login, 'login'));
    const result: Membership[] = [];
    for (const file of await this.dir.list(dir)) {
      const m = await this.dir.readJson<Membership>(this.dir.path('identity', 'members', login, file));
      if (m) result.push(m);
    }
    return result.sort((a, b) => (a.org < b.org ? -1 : a.org > b.org ? 1 : 0));
  }

  /**
   * Also removes the owner's expired tokens: an owner that gets a token per CI login (OIDC) then keeps only those
   * still alive, even if nobody lists them. That clean-up is housekeeping: the token is stored whatever it meets.
   */
  async putToken(token: TokenRecord): Promise<void> {
    const hashPath = this.hashPath(token.tokenHash);
    const idPath = this.idPath(token.login, token.id);
    await this.dir.withLock('identity-tokens', async () => {
      if ((await this.dir.readJson(idPath)) || (await this.dir.readJson(hashPath))) {
        throw new ConflictError(`Token ${token.id} already exists.`);
      }
      await this.dir.writeJson(hashPath, token);
      await this.dir.writeJson(idPath, { tokenHash: token.tokenHash });
    });
    await this.liveTokens(token.login).catch(() => undefined);
  }

  async findToken(tokenHash: string): Promise<TokenRecord | undefined> {
    if (typeof tokenHash !== 'string' || !HASH.test(tokenHash)) return undefined;
    return this.dir.readJson<TokenRecord>(this.hashPath(tokenHash));
  }

  async listTokens(login: string): Promise<TokenRecord[]> {
    const live = await this.liveTokens(login);
    return live.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  }

  async revokeToken(login: string, id: string): Promise<void> {
    const idPath = this.idPath(login, id);
    await this.dir.withLock('identity-tokens', async () => {
      const ref = await this.dir.readJson<{ tokenHash: string }>(idPath);
      if (!ref) throw new NotFoundError(`User '${login}' has no token ${id}.`);
      await this.dir.remove(this.hashPath(ref.tokenHash));
      await this.dir.remove(idPath);
    });
  }

  /**
   * The owner's tokens that have not expired; expired ones are removed on the way (both files, under the token lock),
   * as DynamoDB's TTL removes them in the AWS deployment. Until then `findToken` still finds an expired token, so
   * authentication can say it expired. The by-hash file goes first, so a crash in between leaves only an id file
   * that names no token; those are removed here too (under the lock nothing else leaves one: writes put the by-hash
   * file first, and removals take it first).
   */
  private async liveTokens(login: string): Promise<TokenRecord[]> {
    const dir = this.dir.path('identity', 'token-ids', safeSegment(login, 'login'));
    const live: TokenRecord[] = [];
    const gone: { idPath: string; tokenHash: string }[] = [];
    for (const file of await this.dir.list(dir)) {
      const idPath = this.dir.path('identity', 'token-ids', login, file);
      const ref = await this.dir.readJson<{ tokenHash: string }>(idPath);
      if (!ref) continue;
      const token = await this.findToken(ref.tokenHash);
      if (token && !isExpired(token, this.now())) live.push(token);
      else gone.push({ idPath, tokenHash: ref.tokenHash });
    }
    if (gone.length > 0) {
      await this.dir.withLock('identity-tokens', async () => {
        for (const { idPath, tokenHash } of gone) {
          const token = await this.findToken(tokenHash);
          if (token && !isExpired(token, this.now())) continue;
          await this.dir.remove(this.hashPath(tokenHash));
          await this.dir.remove(idPath);
        }
      });
    }
    return live;
  }

  private memberPath(org: string, login: string): string {
    return this.dir.path('identity', 'members', safeSegment(login, 'login'), `${safeSegment(org, 'organization')}.json`);
  }

  private teamPath(org: string, name: string): string {
    return this.dir.path('identity', 'teams', safeSegment(org, 'organization'), `${safeSegment(name, 'team')}.json`);
  }

  private oidcPolicyPath(org: string, id: string): string {
    return this.dir.path('identity', 'oidc-policies', safeSegment(org, 'organization'), `${safeSegment(id, 'policy id')}.json`);
  }

  private userPath(login: string): string {
    return this.dir.path('identity', 'users', `${safeSegment(login, 'login')}.json`);
  }

  private orgPath(name: string): string {
    return this.dir.path('identity', 'orgs', `${safeSegment(name, 'organization')}.json`);
  }

  private idPath(login: string, id: string): string {
    return this.dir.path('identity', 'token-ids', safeSegment(login, 'login'), `${safeSegment(id, 'token id')}.json`);
  }

  private hashPath(tokenHash: string): string {
    if (typeof tokenHash !== 'string' || !HASH.test(tokenHash)) {
      throw new InvalidInputError('A token hash must be 64 lowercase hex digits.');
    }
    return this.dir.path('identity', 'tokens', `${tokenHash}.json`);
  }
}

function isExpired(token: TokenRecord, now: number): boolean {
  return token.expiresAt !== undefined && token.expiresAt <= now;
}
