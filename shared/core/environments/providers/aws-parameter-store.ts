/**
 * `fn::open::aws-parameter-store` (ESC's schema): `{region, login, get: {<name>: {name, decrypt?}}}` reads each
 * parameter with SSM `GetParameter` (a name may end in `:<version>` or `:<label>`, as SSM takes it) using the
 * `login` credentials. A `SecureString` is decrypted when `decrypt: true` and is secret either way; `String` and
 * `StringList` values are plain strings, as SSM returns them.
 */
import { escValue, type EscProvider } from '../../../esc/index.js';
import { AwsCallError, type AwsProviderApi } from '../../../ports/aws-provider-api.js';
import { loginCredentials, plainInputs, readerInputSchema } from './provider-inputs.js';

const INPUT_SCHEMA = readerInputSchema({ name: { type: 'string' }, decrypt: { type: 'boolean' } }, ['name']);

/** The aws-parameter-store provider. */
export function awsParameterStoreProvider(api: AwsProviderApi): EscProvider {
  return {
    inputSchema: INPUT_SCHEMA,
    outputSchema: { type: 'object', additionalProperties: { type: 'string' } },
    async open(inputs) {
      const plain = plainInputs(inputs);
      const credentials = loginCredentials(plain.login);
      const region = String(plain.region);
      const wanted = Object.entries((plain.get ?? {}) as Record<string, { name: string; decrypt?: boolean }>);
      const values = await Promise.all(
        wanted.map(async ([key, entry]) => {
          try {
            const parameter = await api.getParameter({ region, credentials, name: entry.name, decrypt: entry.decrypt === true });
            if (typeof parameter.value !== 'string') throw new Error(`aws-parameter-store: parameter '${entry.name}' came back without a value`);
            return [key, escValue(parameter.value, { secret: parameter.type === 'SecureString' })] as const;
          } catch (error) {
            if (error instanceof AwsCallError) throw new Error(`aws-parameter-store: could not read parameter '${entry.name}' (${key}) in ${region}: ${error.code}: ${error.awsMessage}`);
            throw error;
          }
        }),
      );
      return { value: Object.fromEntries(values) };
    },
  };
}
