/**
 * Decrypting secrets that were encrypted by another secrets provider than the target stack's key, as Pulumi names
 * them in a checkpoint (`secrets_providers: {type, state}`) or in `Pulumi.<stack>.yaml` (`encryptionsalt`, or
 * `secretsprovider` + `encryptedkey`): `passphrase`, `cloud` with an `awskms://` URL, and `service` (a Pulumi-compatible
 * service's decrypt endpoints, our own backends included). Plaintexts only ever live in memory: callers re-encrypt
 * them under the target stack's key at once.
 */
import { promises as fs } from 'node:fs';
import { resolve } from 'node:path';
import { UserError } from '../output/errors.js';
import { CiphertextError, IncorrectPassphraseError, passphraseCrypter, SymmetricCrypter } from './pulumi-crypter.js';

/** Turns ciphertexts of one provider into plaintexts, same order; fails the whole batch on any bad value. */
export interface SecretsDecrypter {
  /** Names the provider in messages and plans (`passphrase`, `awskms://…`, `service https://…`). */
  readonly description: string;
  decrypt(ciphertexts: readonly string[]): Promise<string[]>;
}

/** A checkpoint's `secrets_providers` value. */
export interface SecretsProviderSpec {
  type: string;
  state?: unknown;
}

/** The secrets settings of a `Pulumi.<stack>.yaml`. */
export interface StackFileSecrets {
  encryptionsalt?: string;
  secretsprovider?: string;
  encryptedkey?: string;
}

export interface SourceSecretsOptions {
  env: NodeJS.ProcessEnv;
  /** Decrypts through a Pulumi-compatible service for a `service` provider's `{url, owner, project, stack}`. */
  serviceDecrypter?: (state: ServiceProviderState) => Promise<SecretsDecrypter>;
}

export interface ServiceProviderState {
  url: string;
  owner: string;
  project: string;
  stack: string;
}

/** The passphrase Pulumi would use: PULUMI_CONFIG_PASSPHRASE (even empty), else PULUMI_CONFIG_PASSPHRASE_FILE. */
export async function configPassphrase(env: NodeJS.ProcessEnv): Promise<string> {
  if (env.PULUMI_CONFIG_PASSPHRASE !== undefined) return env.PULUMI_CONFIG_PASSPHRASE;
  const file = env.PULUMI_CONFIG_PASSPHRASE_FILE;
  if (file) {
    const text = await fs.readFile(resolve(file), 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new UserError(`unable to read PULUMI_CONFIG_PASSPHRASE_FILE (${file}): ${error.code ?? error.message}`);
    });
    return text.trim();
  }
  throw new UserError(
    'passphrase must be set with PULUMI_CONFIG_PASSPHRASE or PULUMI_CONFIG_PASSPHRASE_FILE environment variables',
    'Set one of them to the passphrase the source stacks were protected with.',
  );
}

/** Opens the `passphrase` provider of a state string (`v1:<salt>:<check>`). */
export async function passphraseDecrypter(state: string, env: NodeJS.ProcessEnv): Promise<SecretsDecrypter> {
  const phrase = await configPassphrase(env);
  let crypter: SymmetricCrypter;
  try {
    crypter = await passphraseCrypter(phrase, state);
  } catch (error) {
    if (error instanceof IncorrectPassphraseError) {
      throw new UserError(
        'incorrect passphrase: it does not open the source\'s encryption salt',
        'Set PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE) to the passphrase of the source stacks.',
      );
    }
    if (error instanceof CiphertextError) throw new UserError(`the passphrase state '${state.slice(0, 40)}' is malformed: ${error.message}`);
    throw error;
  }
  return symmetricDecrypter('passphrase', crypter);
}

function symmetricDecrypter(description: string, crypter: SymmetricCrypter): SecretsDecrypter {
  return {
    description,
    async decrypt(ciphertexts) {
      return ciphertexts.map((ciphertext) => {
        try {
          return crypter.decrypt(ciphertext);
        } catch (error) {
          if (error instanceof CiphertextError) {
            throw new UserError(`a secret could not be decrypted with the ${description} secrets provider: ${error.message}`);
          }
          throw error;
        }
      });
    },
  };
}

/**
 * Where an `awskms://` URL points: the key (host and path: `alias/x`, a key id, or an ARN after `awskms:///`) and
 * the `region`/`endpoint` query parameters; the SDK's own chain (AWS_REGION, AWS_ENDPOINT_URL_KMS, credentials)
 * fills in the rest.
 */
export function parseAwsKmsUrl(url: string): { keyId: string; region?: string; endpoint?: string } {
  const parsed = new URL(url);
  const keyId = decodeURIComponent(`${parsed.host}${parsed.pathname}`).replace(/^\/+/, '');
  if (parsed.protocol !== 'awskms:' || keyId === '') {
    throw new UserError(`'${url}' is not an awskms:// secrets provider URL`, 'Use awskms://alias/<name>?region=<region>, or awskms:///<key ARN>.');
  }
  const region = parsed.searchParams.get('region') ?? undefined;
  const endpoint = parsed.searchParams.get('endpoint') ?? undefined;
  return { keyId, ...(region ? { region } : {}), ...(endpoint ? { endpoint } : {}) };
}

/** Opens a `cloud` provider: unwraps its data key with the KMS named by the URL (only `awskms://` here). */
export async function cloudDecrypter(url: string, encryptedKey: Uint8Array): Promise<SecretsDecrypter> {
  if (!url.startsWith('awskms://')) {
    const scheme = url.split('://')[0];
    throw new UserError(
      `the secrets provider '${scheme}://…' is not supported by stackyard (only passphrase, awskms:// and service)`,
      'Change the source stack to a supported provider first (`pulumi stack change-secrets-provider passphrase`).',
    );
  }
  const location = parseAwsKmsUrl(url);
  const { kmsDecrypt } = await import('./aws-kms.js');
  let dataKey: Uint8Array | undefined;
  try {
    dataKey = await kmsDecrypt(location, encryptedKey);
  } catch (error) {
    const name = (error as { name?: string }).name ?? 'Error';
    throw new UserError(
      `could not unwrap the data key of ${url} with KMS: ${name}: ${(error as Error).message}`,
      'Check your AWS credentials and region, and that they may call kms:Decrypt on that key.',
    );
  }
  if (!dataKey) throw new UserError(`KMS returned no data key for ${url}`);
  return symmetricDecrypter(url, new SymmetricCrypter(dataKey));
}

function stringField(state: unknown, name: string): string | undefined {
  const value = state !== null && typeof state === 'object' ? (state as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** The decrypter of a checkpoint's `secrets_providers`. */
export async function decrypterForProvider(spec: SecretsProviderSpec, options: SourceSecretsOptions): Promise<SecretsDecrypter> {
  switch (spec.type) {
    case 'passphrase': {
      const salt = stringField(spec.state, 'salt');
      if (!salt) throw new UserError('the deployment\'s passphrase secrets provider has no salt in its state');
      return passphraseDecrypter(salt, options.env);
    }
    case 'cloud': {
      const url = stringField(spec.state, 'url');
      const key = stringField(spec.state, 'encryptedkey');
      if (!url || !key) throw new UserError('the deployment\'s cloud secrets provider lacks its url or encryptedkey');
      return cloudDecrypter(url, Buffer.from(key, 'base64'));
    }
    case 'service': {
      const state = spec.state as Partial<ServiceProviderState> | undefined;
      if (!state?.url || !state.owner || !state.project || !state.stack || !options.serviceDecrypter) {
        throw new UserError('the deployment\'s service secrets provider does not name its service and stack');
      }
      return options.serviceDecrypter(state as ServiceProviderState);
    }
    default:
      throw new UserError(
        `the secrets provider type '${spec.type}' is not supported by stackyard (only passphrase, awskms:// and service)`,
        'Change the source stack to a supported provider first.',
      );
  }
}

/**
 * The decrypter a stack file names: `encryptionsalt` (passphrase), `secretsprovider` + `encryptedkey` (cloud), or
 * `undefined` when the file names none (its values belong to the default provider of the backend it came from).
 */
export async function decrypterForStackFile(file: StackFileSecrets, env: NodeJS.ProcessEnv): Promise<SecretsDecrypter | undefined> {
  const provider = file.secretsprovider;
  if (provider && provider !== 'passphrase' && provider !== 'default' && provider !== 'service') {
    if (!file.encryptedkey) throw new UserError(`the stack file names secretsprovider ${provider} but has no encryptedkey`);
    return cloudDecrypter(provider, Buffer.from(file.encryptedkey, 'base64'));
  }
  if (file.encryptionsalt) return passphraseDecrypter(file.encryptionsalt, env);
  return undefined;
}
