/**
 * The parts of the STS, Secrets Manager and SSM SDKs the providers use, loaded lazily by `sdkAwsProviderApi`: named
 * re-exports let bundlers keep only these, and processes that never open a provider never load them.
 */
export { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
export { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
export { AssumeRoleWithWebIdentityCommand, STSClient } from '@aws-sdk/client-sts';
