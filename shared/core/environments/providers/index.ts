/** Providers that run in the service when an environment is opened (issue 31, part 3); their OIDC issuer is ../issuer/. */
import type { EscProvider } from '../../../esc/index.js';
import { AwsCallError, type AwsProviderApi } from '../../../ports/aws-provider-api.js';
import type { ServiceDeps } from '../../kernel/deps.js';
import { awsLoginProvider } from './aws-login.js';
import { awsParameterStoreProvider } from './aws-parameter-store.js';
import { awsSecretsProvider } from './aws-secrets.js';


const notConfigured = (): never => {
  throw new AwsCallError('aws', 'NotConfigured', 'this service was started without an AWS client for environment providers', 503);
};

/** What a service built without the AWS adapter answers: every call fails, naming why. */
const UNCONFIGURED: AwsProviderApi = { assumeRoleWithWebIdentity: notConfigured, getSecretValue: notConfigured, getParameter: notConfigured };

/** Every provider an environment of `org` may open, by the name `fn::open::<name>` uses (ESC's names). */
export function environmentProviders(deps: ServiceDeps, org: string): Record<string, EscProvider> {
  const api = deps.options.awsProviderApi ?? UNCONFIGURED;
  return {
    'aws-login': awsLoginProvider(deps, org, api),
    'aws-secrets': awsSecretsProvider(api),
    'aws-parameter-store': awsParameterStoreProvider(api),
  };
}
