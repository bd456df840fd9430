/** Providers that run in the service when an environment is opened (issue 31, part 3), and the OIDC issuer they use. */
import type { EscProvider } from '../../../esc/index.js';
import type { ServiceDeps } from '../../kernel/deps.js';
import { awsLoginProvider } from './aws-login.js';
import { awsParameterStoreProvider } from './aws-parameter-store.js';
import { awsSecretsProvider } from './aws-secrets.js';

export { discoveryDocument, issuerKeySet, issuerUrl, signIdToken, ISSUER_PATH } from './issuer.js';

/** Every provider an environment of `org` may open, by the name `fn::open::<name>` uses (ESC's names). */
export function environmentProviders(deps: ServiceDeps, org: string): Record<string, EscProvider> {
  return {
    'aws-login': awsLoginProvider(deps, org),
    'aws-secrets': awsSecretsProvider(),
    'aws-parameter-store': awsParameterStoreProvider(),
  };
}
