/**
 * `fn::open::aws-secrets` (ESC's schema): `{region, login, get: {<name>: {secretId, versionId?, versionStage?}}}`
 * reads each secret with Secrets Manager `GetSecretValue` (by name or ARN) using the `login` credentials (from
 * aws-login); the result maps each name to the secret's string, secret.
 */
import { escValue, type EscProvider } from '../../../esc/index.js';
import { AwsCallError, type AwsProviderApi } from '../../../ports/aws-provider-api.js';
import { loginCredentials, plainInputs, readerInputSchema } from './provider-inputs.js';

const INPUT_SCHEMA = readerInputSchema({ secretId: { type: 'string' }, versionId: { type: 'string' }, versionStage: { type: 'string' } }, ['secretId']);

/** The aws-secrets provider. */
export function awsSecretsProvider(api: AwsProviderApi): EscProvider {
  return {
    inputSchema: INPUT_SCHEMA,
    outputSchema: { type: 'object', additionalProperties: { type: 'string', secret: true } },
    async open(inputs) {
      const plain = plainInputs(inputs);
      const credentials = loginCredentials(plain.login);
      const region = String(plain.region);
      const wanted = Object.entries((plain.get ?? {}) as Record<string, { secretId: string; versionId?: string; versionStage?: string }>);
      const values = await Promise.all(
        wanted.map(async ([name, entry]) => {
          try {
            const answer = await api.getSecretValue({ region, credentials, secretId: entry.secretId, versionId: entry.versionId, versionStage: entry.versionStage });
            if (typeof answer.secretString !== 'string') throw new Error(`aws-secrets: secret '${entry.secretId}' holds binary data; only string secrets can be read`);
            return [name, escValue(answer.secretString, { secret: true })] as const;
          } catch (error) {
            if (error instanceof AwsCallError) throw new Error(`aws-secrets: could not read secret '${entry.secretId}' (${name}) in ${region}: ${error.code}: ${error.awsMessage}`);
            throw error;
          }
        }),
      );
      return { value: Object.fromEntries(values) };
    },
  };
}
