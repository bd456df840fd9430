/** Services on the real local adapter over a temp data folder, with a settable clock; for shared/core's tests. */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalStorage } from '../../shared/adapters/local/index.js';
import { REFUSAL_EVENTS } from '../../shared/core/audit/audit.js';
import { ConflictError } from '../../shared/core/errors.js';
import type { Storage } from '../../shared/ports/index.js';
import type { ServiceDeps } from '../../shared/core/kernel/deps.js';
import type { ServiceOptions } from '../../shared/core/kernel/options.js';
import { createIdentityService } from '../../shared/core/identity/identity-service.js';
import { createSecretService } from '../../shared/core/secrets/secret-service.js';
import { StackKeys } from '../../shared/core/secrets/secrets-envelope.js';
import { createStackService } from '../../shared/core/stacks/stack-service.js';
import type { IdentityService } from '../../shared/core/identity/types.js';
import type { Principal } from '../../shared/core/kernel/principal.js';
import type { SecretService } from '../../shared/core/secrets/types.js';
import type { StackService } from '../../shared/core/stacks/types.js';
import { createAccessService, type AccessService } from '../../shared/core/access/access-service.js';
import type { OrgRole } from '../../shared/ports/identity-store.js';

export const ADMIN_TOKEN = 'fixture-admin-token';
export const START_TIME = Date.parse('2026-03-01T12:00:00Z');

export interface ServiceFixture {
  dataDir: string;
  storage: Storage;
  deps: ServiceDeps;
  identity: IdentityService;
  access: AccessService;
  stacks: StackService;
  secrets: SecretService;
  admin: Principal;
  /** Creates a user (and its personal organization) and returns the principal its new token authenticates as. */
  user(login: string, orgs?: string[], role?: OrgRole): Promise<Principal>;
  advance(ms: number): void;
  /** Every stored file except temp files, locks and the log's records of refusals (and their tallies), to show that a refused call changed nothing. */
  snapshot(): Promise<Record<string, string>>;
  close(): Promise<void>;
}

function isRefusalEntry(body: Buffer): boolean {
  const entry = JSON.parse(body.toString('utf8')) as { event?: string };
  return REFUSAL_EVENTS.includes(entry.event ?? '');
}

export async function serviceFixture(options: ServiceOptions = {}): Promise<ServiceFixture> {
  const dataDir = await fs.mkdtemp(join(tmpdir(), 'stackyard-services-'));
  let clock = START_TIME;
  const now = (): number => clock;
  const storage = await createLocalStorage({ dataDir, now });
  const deps: ServiceDeps = {
    storage,
    now,
    keys: new StackKeys(storage, { now, cacheMs: options.dataKeyCacheMs }),
    options: { ...options, now },
  };
  const identity = createIdentityService(deps);
  await identity.ensureAdmin('admin', ADMIN_TOKEN);
  const admin = await identity.authenticate(ADMIN_TOKEN);

  return {
    dataDir,
    storage,
    deps,
    identity,
    access: createAccessService(deps),
    stacks: createStackService(deps),
    secrets: createSecretService(deps),
    admin,
    async user(login, orgs = [], role: OrgRole = 'member') {
      await identity.createUser(admin, { login });
      for (const org of orgs) {
        await identity.createOrg(admin, org).catch((error: unknown) => {
          if (!(error instanceof ConflictError)) throw error;
        });
        await identity.addMember(admin, org, login, role);
      }
      const { token } = await identity.createToken(admin, { login, description: 'fixture' });
      return identity.authenticate(token);
    },
    advance(ms) {
      clock += ms;
    },
    async snapshot() {
      const files: Record<string, string> = {};
      for (const entry of await fs.readdir(dataDir, { withFileTypes: true, recursive: true })) {
        if (!entry.isFile()) continue;
        const path = join(entry.parentPath, entry.name);
        if (path.startsWith(join(dataDir, 'tmp')) || path.startsWith(join(dataDir, 'locks'))) continue;
        const body = await fs.readFile(path);
        // Recording refused sign-ins and authorizations is the audit log's job (docs/security.md); nothing else may change.
        if (path.startsWith(join(dataDir, 'audit', '')) && isRefusalEntry(body)) continue;
        if (path.startsWith(join(dataDir, 'audit-tallies', ''))) continue;
        files[path.slice(dataDir.length)] = body.toString('base64');
      }
      return files;
    },
    async close() {
      await storage.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
