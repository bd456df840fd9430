import { auditTable, consoleSessionTable, identityTable, stackTable } from '../../shared/adapters/aws/table-stores.js';
import { createAuditService } from '../../shared/core/audit/audit.js';
import { createConsoleAuth } from '../../shared/core/console/console-auth.js';
import { createOidcService } from '../../shared/core/oidc/oidc-service.js';
import { createAccessService } from '../../shared/core/access/access-service.js';
import { createIdentityService } from '../../shared/core/identity/identity-service.js';
import { lambdaHandler, type LambdaFunction } from '../composition.js';
import { IDENTITY_GROUP_ROUTES } from '../http/routes/group-identity.js';

/**
 * API Gateway entry point of the identity routes and `$default`: users, organizations, tokens, administration,
 * audit, OIDC and console sign-in, on the table only (docs/deploy.md, "What each function bundles").
 */
export const identityFunction: LambdaFunction = {
  group: 'identity',
  routes: IDENTITY_GROUP_ROUTES,
  tables: [identityTable, auditTable, consoleSessionTable, stackTable],
  storage: [],
  services: (deps, audited) => {
    const identity = audited(createIdentityService(deps));
    return {
      identity,
      console: audited(createConsoleAuth(deps, identity)),
      access: audited(createAccessService(deps)),
      audit: audited(createAuditService(deps)),
      oidc: audited(createOidcService(deps)),
    };
  },
};

export const handler = lambdaHandler(identityFunction);
