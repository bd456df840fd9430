/**
 * The AWS SDK's side of the providers' port (shared/ports/aws-provider-api.ts): STS `AssumeRoleWithWebIdentity`
 * (unsigned; the ID token is the credential), Secrets Manager `GetSecretValue` and SSM `GetParameter` (signed with
 * the credentials STS issued), through the SDK's own clients, loaded on the first call. Endpoints follow the SDK's
 * own settings, `AWS_ENDPOINT_URL_<SERVICE>` then `AWS_ENDPOINT_URL`, read from the `env` given (tests and `serve`
 * pass their own) and else the regional public endpoint. SDK errors become {@link AwsCallError}s here.
 */
import { AwsCallError, type AwsCredentials, type AwsProviderApi } from '../../ports/aws-provider-api.js';

/** The services the providers call: the SDK's endpoint env-var suffix and the public host of each. */
export const AWS_SERVICES = {
  sts: { envSuffix: 'STS', name: 'sts', host: (region: string) => `sts.${region}.amazonaws.com` },
  secretsManager: { envSuffix: 'SECRETS_MANAGER', name: 'secretsmanager', host: (region: string) => `secretsmanager.${region}.amazonaws.com` },
  ssm: { envSuffix: 'SSM', name: 'ssm', host: (region: string) => `ssm.${region}.amazonaws.com` },
} as const;
export type AwsService = keyof typeof AWS_SERVICES;

const REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;
const CALL_TIMEOUT_MS = 10_000;

/** Where a service is reached: the SDK's endpoint variables win; a region that is not one is refused (it names a host). */
export function awsEndpoint(service: AwsService, region: string, env: NodeJS.ProcessEnv = process.env): string {
  const configured = env[`AWS_ENDPOINT_URL_${AWS_SERVICES[service].envSuffix}`]?.trim() || env.AWS_ENDPOINT_URL?.trim();
  if (configured) return configured.replace(/\/+$/, '');
  if (!REGION.test(region)) throw new AwsCallError(AWS_SERVICES[service].name, 'InvalidRegion', `'${region.slice(0, 40)}' is not an AWS region (e.g. us-east-1)`, 400);
  return `https://${AWS_SERVICES[service].host(region)}`;
}

type Sdk = typeof import('./aws-provider-sdk.js');
let sdk: Promise<Sdk> | undefined;
const loadSdk = () => (sdk ??= import('./aws-provider-sdk.js'));

/** The client settings every call shares: its endpoint, one retry, a bounded wait. */
function clientConfig(service: AwsService, region: string, env: NodeJS.ProcessEnv) {
  return {
    region,
    endpoint: awsEndpoint(service, region, env),
    maxAttempts: 2,
    requestHandler: { requestTimeout: CALL_TIMEOUT_MS, connectionTimeout: CALL_TIMEOUT_MS },
  };
}

/** An SDK failure as an {@link AwsCallError}: a service answer keeps AWS's code; a network failure says what was not reached. */
function callError(service: AwsService, endpoint: string, error: unknown): AwsCallError {
  // The query protocol (STS) keeps AWS's own code in `Code`; the SDK's class name adds `Exception` to it.
  const failure = error as { Code?: string; name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = failure.$metadata?.httpStatusCode;
  if (status === undefined) return new AwsCallError(AWS_SERVICES[service].name, 'Unreachable', `could not reach ${endpoint}: ${failure.message ?? String(error)}`, 503);
  const code = failure.Code ?? failure.name ?? `HTTP${status}`;
  return new AwsCallError(AWS_SERVICES[service].name, code, failure.message || 'no message', status);
}

async function call<T>(service: AwsService, region: string, env: NodeJS.ProcessEnv, send: (config: ReturnType<typeof clientConfig>, sdk: Sdk) => Promise<T>): Promise<T> {
  const config = clientConfig(service, region, env);
  try {
    return await send(config, await loadSdk());
  } catch (error) {
    throw callError(service, config.endpoint, error);
  }
}

/** STS `AssumeRoleWithWebIdentity`: the role's credentials for a web identity token, valid `durationSeconds`. */
async function assumeRoleWithWebIdentity(request: Parameters<AwsProviderApi['assumeRoleWithWebIdentity']>[0], env: NodeJS.ProcessEnv): Promise<AwsCredentials & { expiration: string }> {
  const region = env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim() || 'us-east-1';
  const answer = await call('sts', region, env, (config, { STSClient, AssumeRoleWithWebIdentityCommand }) =>
    // No credentials: the ID token is the credential, and the service's own must not be looked for or sent.
    new STSClient({ ...config, credentials: { accessKeyId: '', secretAccessKey: '' } }).send(
      new AssumeRoleWithWebIdentityCommand({
        RoleArn: request.roleArn,
        RoleSessionName: request.sessionName,
        WebIdentityToken: request.webIdentityToken,
        DurationSeconds: request.durationSeconds,
        ...(request.policyArns?.length ? { PolicyArns: request.policyArns.map((arn) => ({ arn })) } : {}),
      }),
    ),
  );
  const issued = answer.Credentials;
  if (!issued?.AccessKeyId || !issued.SecretAccessKey || !issued.SessionToken || !issued.Expiration) {
    throw new AwsCallError('sts', 'InvalidResponse', 'the answer carries no complete credentials', 200);
  }
  return { accessKeyId: issued.AccessKeyId, secretAccessKey: issued.SecretAccessKey, sessionToken: issued.SessionToken, expiration: issued.Expiration.toISOString() };
}

/** The three fields the SDK signs with (a caller's credentials may carry more, such as STS's expiration as text). */
function signingCredentials(credentials: AwsCredentials): AwsCredentials {
  return { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey, ...(credentials.sessionToken ? { sessionToken: credentials.sessionToken } : {}) };
}

/** Secrets Manager `GetSecretValue` by name or ARN: the secret's string (`undefined` for a binary secret). */
async function getSecretValue(request: Parameters<AwsProviderApi['getSecretValue']>[0], env: NodeJS.ProcessEnv): Promise<{ secretString?: string }> {
  const answer = await call('secretsManager', request.region, env, (config, { SecretsManagerClient, GetSecretValueCommand }) =>
    new SecretsManagerClient({ ...config, credentials: signingCredentials(request.credentials) }).send(
      new GetSecretValueCommand({
        SecretId: request.secretId,
        ...(request.versionId ? { VersionId: request.versionId } : {}),
        ...(request.versionStage ? { VersionStage: request.versionStage } : {}),
      }),
    ),
  );
  return { secretString: answer.SecretString };
}

/** SSM `GetParameter`: the parameter's value and type (`SecureString` values decrypted when asked). */
async function getParameter(request: Parameters<AwsProviderApi['getParameter']>[0], env: NodeJS.ProcessEnv): Promise<{ value?: string; type?: string }> {
  const answer = await call('ssm', request.region, env, (config, { SSMClient, GetParameterCommand }) =>
    new SSMClient({ ...config, credentials: signingCredentials(request.credentials) }).send(new GetParameterCommand({ Name: request.name, WithDecryption: request.decrypt })),
  );
  return { value: answer.Parameter?.Value, type: answer.Parameter?.Type };
}

/** The providers' AWS calls through the SDK, with the endpoints `env` configures (default: this process's environment). */
export function sdkAwsProviderApi(env: NodeJS.ProcessEnv = process.env): AwsProviderApi {
  return {
    assumeRoleWithWebIdentity: (request) => assumeRoleWithWebIdentity(request, env),
    getSecretValue: (request) => getSecretValue(request, env),
    getParameter: (request) => getParameter(request, env),
  };
}
