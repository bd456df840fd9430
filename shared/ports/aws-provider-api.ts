/**
 * The AWS calls the environments' providers make (aws-login, aws-secrets, aws-parameter-store): STS
 * `AssumeRoleWithWebIdentity`, Secrets Manager `GetSecretValue` and SSM `GetParameter`. The core names what to call;
 * the adapter (shared/adapters/aws/aws-provider-api.ts, the AWS SDK's clients) knows endpoints and wire formats.
 *
 * Guarantees:
 * - `assumeRoleWithWebIdentity` sends no credentials of the process: the web identity token is the credential. It
 *   returns complete credentials (key id, secret key, session token, expiration) or throws.
 * - `getSecretValue` and `getParameter` are signed with the credentials given, and with nothing else.
 * - Every failure of AWS or of the network is an {@link AwsCallError} carrying AWS's code and message (or
 *   `Unreachable`, `InvalidRegion`), never the request, which holds the token or the signature.
 * - Nothing is cached: each call reaches AWS.
 */

/** Short-lived AWS credentials, as STS returns them. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** An AWS service refused or failed a call: AWS's error code and message, and the HTTP status. */
export class AwsCallError extends Error {
  constructor(
    readonly service: string,
    readonly code: string,
    readonly awsMessage: string,
    readonly status: number,
  ) {
    super(`${service}: ${code}: ${awsMessage}`);
  }
}

/** STS `AssumeRoleWithWebIdentity`'s request. */
export interface WebIdentityRequest {
  roleArn: string;
  sessionName: string;
  webIdentityToken: string;
  durationSeconds: number;
  policyArns?: readonly string[];
}

/** The three calls; see the guarantees above. */
export interface AwsProviderApi {
  /** The role's credentials for a web identity token, valid `durationSeconds`. */
  assumeRoleWithWebIdentity(request: WebIdentityRequest): Promise<AwsCredentials & { expiration: string }>;
  /** A secret by name or ARN: its string (`undefined` for a binary secret). */
  getSecretValue(request: { region: string; credentials: AwsCredentials; secretId: string; versionId?: string; versionStage?: string }): Promise<{ secretString?: string }>;
  /** A parameter's value and type (`SecureString` values decrypted when asked). */
  getParameter(request: { region: string; credentials: AwsCredentials; name: string; decrypt: boolean }): Promise<{ value?: string; type?: string }>;
}
