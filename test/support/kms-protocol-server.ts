/**
 * A small KMS stand-in speaking the AWS JSON 1.1 protocol (`x-amz-target: TrentService.<Op>`), enough for
 * `@aws-sdk/client-kms`: symmetric keys, aliases, data keys and envelope encryption with encryption contexts.
 * node:http and node:crypto only; signatures are not checked. Run it as its own process (see kms-server.ts):
 * it prints `READY <port>` once listening. Seeded from STACKYARD_KMS_SEED_KEY_ID / STACKYARD_KMS_SEED_ALIAS.
 */
import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';

const REGION = 'us-east-1';
const ACCOUNT = '000000000000';
const BLOB_VERSION = 0x01;
const UUID_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + UUID_BYTES + IV_BYTES + TAG_BYTES;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface KmsKey {
  id: string;
  material: Buffer;
  enabled: boolean;
  description: string;
  creationDate: number;
}

class KmsFault extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

type Body = Record<string, unknown>;

/** Options for {@link createKmsProtocolServer}. */
export interface KmsProtocolServerOptions {
  /** Keys (UUIDs) that exist from the start, each with optional aliases (`alias/<name>`). */
  seed?: { keyId: string; aliases?: string[] }[];
}

/** Builds the stand-in (not yet listening). */
export function createKmsProtocolServer(options: KmsProtocolServerOptions = {}): Server {
  const keys = new Map<string, KmsKey>();
  const aliases = new Map<string, string>();

  const keyArn = (id: string) => `arn:aws:kms:${REGION}:${ACCOUNT}:key/${id}`;

  function addKey(id: string, description = ''): KmsKey {
    const key = { id, material: randomBytes(32), enabled: true, description, creationDate: Date.now() / 1000 };
    keys.set(id, key);
    return key;
  }

  function addAlias(name: string, targetKeyId: unknown): void {
    if (!/^alias\/[a-zA-Z0-9/_-]{1,250}$/.test(name) || name.startsWith('alias/aws/')) {
      throw new KmsFault('ValidationException', `Alias name '${name}' must look like alias/<name>.`);
    }
    if (aliases.has(name)) throw new KmsFault('AlreadyExistsException', `An alias with the name ${name} already exists`);
    aliases.set(name, resolve(targetKeyId).id);
  }

  for (const entry of options.seed ?? []) {
    addKey(entry.keyId, 'seeded');
    for (const alias of entry.aliases ?? []) addAlias(alias, entry.keyId);
  }

  function resolve(keyId: unknown): KmsKey {
    if (typeof keyId !== 'string' || keyId.length === 0 || keyId.length > 2048) {
      throw new KmsFault('ValidationException', 'KeyId must be a non-empty string of at most 2048 characters.');
    }
    let id: string | undefined;
    const arn = /^arn:aws:kms:[^:]+:[^:]+:(key|alias)\/(.+)$/.exec(keyId);
    if (arn) id = arn[1] === 'key' ? arn[2] : aliases.get(`alias/${arn[2]}`);
    else if (keyId.startsWith('alias/')) id = aliases.get(keyId);
    else id = keyId;
    const key = id === undefined ? undefined : keys.get(id);
    if (!key) throw new KmsFault('NotFoundException', `Key '${keyId}' does not exist`);
    return key;
  }

  function usable(keyId: unknown): KmsKey {
    const key = resolve(keyId);
    if (!key.enabled) throw new KmsFault('DisabledException', `${keyArn(key.id)} is disabled.`);
    return key;
  }

  function contextAad(context: unknown): Buffer {
    if (context === undefined || context === null) return Buffer.alloc(0);
    if (typeof context !== 'object' || Array.isArray(context)) {
      throw new KmsFault('ValidationException', 'EncryptionContext must be a map of strings.');
    }
    const entries = Object.entries(context as Record<string, unknown>);
    for (const [, value] of entries) {
      if (typeof value !== 'string') throw new KmsFault('ValidationException', 'EncryptionContext values must be strings.');
    }
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Buffer.from(JSON.stringify(entries));
  }

  function blob(value: unknown, field: string, max: number): Buffer {
    if (typeof value !== 'string') throw new KmsFault('ValidationException', `${field} is required.`);
    const bytes = Buffer.from(value, 'base64');
    if (bytes.length < 1 || bytes.length > max) {
      throw new KmsFault('ValidationException', `${field} must be between 1 and ${max} bytes long.`);
    }
    return bytes;
  }

  function seal(key: KmsKey, plaintext: Buffer, context: unknown): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key.material, iv);
    cipher.setAAD(contextAad(context));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([Buffer.from([BLOB_VERSION]), Buffer.from(key.id.replace(/-/g, ''), 'hex'), iv, cipher.getAuthTag(), body]);
  }

  function open(ciphertext: Buffer, context: unknown, keyId: unknown): { key: KmsKey; plaintext: Buffer } {
    const invalid = () => new KmsFault('InvalidCiphertextException', 'The ciphertext is invalid or does not match the encryption context.');
    if (ciphertext.length < HEADER_BYTES || ciphertext[0] !== BLOB_VERSION) throw invalid();
    const hex = ciphertext.subarray(1, 1 + UUID_BYTES).toString('hex');
    const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    const key = keys.get(id);
    if (!key) throw invalid();
    if (keyId !== undefined && resolve(keyId).id !== key.id) {
      throw new KmsFault('IncorrectKeyException', 'The key ID in the request does not identify the key that encrypted the ciphertext.');
    }
    if (!key.enabled) throw new KmsFault('DisabledException', `${keyArn(key.id)} is disabled.`);
    const ivStart = 1 + UUID_BYTES;
    const decipher = createDecipheriv('aes-256-gcm', key.material, ciphertext.subarray(ivStart, ivStart + IV_BYTES));
    decipher.setAAD(contextAad(context));
    decipher.setAuthTag(ciphertext.subarray(ivStart + IV_BYTES, HEADER_BYTES));
    try {
      return { key, plaintext: Buffer.concat([decipher.update(ciphertext.subarray(HEADER_BYTES)), decipher.final()]) };
    } catch {
      throw invalid();
    }
  }

  function dataKeyLength(body: Body): number {
    const { KeySpec, NumberOfBytes } = body;
    if ((KeySpec === undefined) === (NumberOfBytes === undefined)) {
      throw new KmsFault('ValidationException', 'Specify exactly one of KeySpec and NumberOfBytes.');
    }
    if (KeySpec === 'AES_256') return 32;
    if (KeySpec === 'AES_128') return 16;
    if (KeySpec !== undefined) throw new KmsFault('ValidationException', `KeySpec '${String(KeySpec)}' is not valid.`);
    if (!Number.isInteger(NumberOfBytes) || (NumberOfBytes as number) < 1 || (NumberOfBytes as number) > 1024) {
      throw new KmsFault('ValidationException', 'NumberOfBytes must be between 1 and 1024.');
    }
    return NumberOfBytes as number;
  }

  const metadata = (key: KmsKey) => ({
    KeyMetadata: {
      AWSAccountId: ACCOUNT,
      KeyId: key.id,
      Arn: keyArn(key.id),
      CreationDate: key.creationDate,
      Enabled: key.enabled,
      Description: key.description,
      KeyUsage: 'ENCRYPT_DECRYPT',
      KeyState: key.enabled ? 'Enabled' : 'Disabled',
      Origin: 'AWS_KMS',
      KeyManager: 'CUSTOMER',
      KeySpec: 'SYMMETRIC_DEFAULT',
      CustomerMasterKeySpec: 'SYMMETRIC_DEFAULT',
      EncryptionAlgorithms: ['SYMMETRIC_DEFAULT'],
    },
  });

  const operations: Record<string, (body: Body) => Body> = {
    GenerateDataKey(body) {
      const key = usable(body.KeyId);
      const plaintext = randomBytes(dataKeyLength(body));
      return {
        KeyId: keyArn(key.id),
        Plaintext: plaintext.toString('base64'),
        CiphertextBlob: seal(key, plaintext, body.EncryptionContext).toString('base64'),
      };
    },
    GenerateDataKeyWithoutPlaintext(body) {
      const { Plaintext: _omitted, ...rest } = operations.GenerateDataKey(body);
      return rest;
    },
    Encrypt(body) {
      const key = usable(body.KeyId);
      const plaintext = blob(body.Plaintext, 'Plaintext', 4096);
      return {
        KeyId: keyArn(key.id),
        CiphertextBlob: seal(key, plaintext, body.EncryptionContext).toString('base64'),
        EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
      };
    },
    Decrypt(body) {
      const { key, plaintext } = open(blob(body.CiphertextBlob, 'CiphertextBlob', 6144), body.EncryptionContext, body.KeyId);
      return { KeyId: keyArn(key.id), Plaintext: plaintext.toString('base64'), EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
    },
    CreateKey(body) {
      return metadata(addKey(randomUUID(), typeof body.Description === 'string' ? body.Description : ''));
    },
    CreateAlias(body) {
      if (typeof body.AliasName !== 'string') throw new KmsFault('ValidationException', 'AliasName is required.');
      addAlias(body.AliasName, body.TargetKeyId);
      return {};
    },
    DescribeKey(body) {
      return metadata(resolve(body.KeyId));
    },
    DisableKey(body) {
      resolve(body.KeyId).enabled = false;
      return {};
    },
    EnableKey(body) {
      resolve(body.KeyId).enabled = true;
      return {};
    },
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (status: number, payload: Body, errorType?: string) => {
      res.writeHead(status, {
        'content-type': 'application/x-amz-json-1.1',
        'x-amzn-requestid': randomUUID(),
        ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
      });
      res.end(JSON.stringify(payload));
    };
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const target = String(req.headers['x-amz-target'] ?? '');
      const operation = target.startsWith('TrentService.') ? operations[target.slice('TrentService.'.length)] : undefined;
      if (req.method !== 'POST' || !operation) {
        throw new KmsFault('UnknownOperationException', `Operation '${target}' is not supported.`);
      }
      let body: unknown;
      try {
        body = chunks.length === 0 ? {} : JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        throw new KmsFault('SerializationException', 'The request body is not valid JSON.');
      }
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        throw new KmsFault('SerializationException', 'The request body must be a JSON object.');
      }
      send(200, operation(body as Body));
    } catch (error) {
      const fault =
        error instanceof KmsFault ? error : new KmsFault('KMSInternalException', 'Internal error in the KMS stand-in.', 500);
      send(fault.status, { __type: fault.type, message: fault.message }, fault.type);
    }
  }

  return createServer((req, res) => void handle(req, res));
}

function seedFromEnv(): KmsProtocolServerOptions['seed'] {
  const keyId = process.env.STACKYARD_KMS_SEED_KEY_ID;
  if (!keyId) return [];
  if (!UUID.test(keyId)) throw new Error('STACKYARD_KMS_SEED_KEY_ID must be a lowercase UUID.');
  const alias = process.env.STACKYARD_KMS_SEED_ALIAS;
  return [{ keyId, aliases: alias ? [alias] : [] }];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = createKmsProtocolServer({ seed: seedFromEnv() });
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`READY ${typeof address === 'object' && address ? address.port : ''}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
