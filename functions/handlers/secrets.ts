import { sdkAwsProviderApi } from '../../shared/adapters/aws/aws-provider-api.js';
import { auditTable, consoleSessionTable, environmentTable, identityTable, stackTable } from '../../shared/adapters/aws/table-stores.js';
import { createEnvironmentService } from '../../shared/core/environments/environment-service.js';
import { createConsoleAuth } from '../../shared/core/console/console-auth.js';
import { createIdentityService } from '../../shared/core/identity/identity-service.js';
import { StackKeys } from '../../shared/core/secrets/secrets-envelope.js';
import { createSecretService } from '../../shared/core/secrets/secret-service.js';
import { lambdaHandler, type LambdaFunction } from '../composition.js';
import { SECRETS_GROUP_ROUTES } from '../http/routes/group-secrets.js';
import { kmsParts } from '../storage-parts/kms.js';
import { s3Parts } from '../storage-parts/s3.js';

/**
 * API Gateway entry point of the secrets routes and the environments (ESC), on the table, KMS and S3 (environment
 * definitions are objects there) (docs/deploy.md, "What each function bundles").
 */
export const secretsFunction: LambdaFunction = {
  group: 'secrets',
  routes: SECRETS_GROUP_ROUTES,
  tables: [identityTable, auditTable, consoleSessionTable, stackTable, environmentTable],
  storage: [kmsParts, s3Parts],
  keys: (storage, now) => new StackKeys(storage, { now }),
  services: (deps, audited) => {
    const identity = audited(createIdentityService(deps));
    return {
      identity,
      console: audited(createConsoleAuth(deps, identity)),
      secrets: audited(createSecretService(deps)),
      // Only this function opens environments, so only its bundle carries the providers' AWS clients.
      environments: audited(createEnvironmentService({ ...deps, options: { ...deps.options, awsProviderApi: sdkAwsProviderApi() } })),
    };
  },
};

export const handler = lambdaHandler(secretsFunction);
