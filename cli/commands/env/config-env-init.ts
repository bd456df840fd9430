/**
 * `stackyard config env init`, as `pulumi config env init` (pkg/cmd/pulumi/config/config_env_init.go): the stack's own
 * configuration becomes an environment's `values.pulumiConfig` (secrets as `fn::secret`), shown as a value and a
 * definition, saved on `yes` (or `--yes`) in the stack's organization, imported by the stack, and — unless
 * `--keep-config` — removed from `Pulumi.<stack>.yaml`.
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { stringify } from 'yaml';
import { encryptSecrets, toJSON } from '../../../shared/esc/index.js';
import { propertyDiagnostics } from '../../environments/diagnostics.js';
import { goIndentJSON } from '../../environments/render.js';
import { decryptConfig } from '../../project/config-values.js';
import { mapSecureValues } from '../../project/stack-config.js';
import { UserError } from '../../output/errors.js';
import { configTarget } from '../config.js';
import type { CommandContext } from '../context.js';
import type { CommandHandler } from '../types.js';

/** A secret's plaintext, marked as Pulumi's property.Value marks one (a class, so no config object is mistaken for it). */
class Secret {
  constructor(readonly plaintext: string | undefined) {}
}

/**
 * Pulumi's coercion of an untyped top-level config value (config.Value.coerceObject): `true`/`false` are booleans and
 * integers without a leading zero are numbers; anything else stays the string it is.
 */
function coerceTopLevel(value: unknown): unknown {
  if (value === null || typeof value === 'object') return value;
  const text = String(value);
  if (text === 'true' || text === 'false') return text === 'true';
  if (text.length > 1 && text.startsWith('0')) return text;
  return /^-?\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : text;
}

/** The definition's YAML for a value: a secret as `fn::secret: <plaintext>`. */
function definitionValue(value: unknown): unknown {
  if (value instanceof Secret) return { 'fn::secret': value.plaintext };
  if (Array.isArray(value)) return value.map(definitionValue);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, definitionValue(v)]));
  return value;
}

/**
 * A throwaway key that seals the secrets of the definition shown before saving, as Pulumi's does (a fresh symmetric
 * key, `v1:<nonce>:<ciphertext>`): the preview never prints a plaintext, and nothing can open what it prints.
 */
function previewSealer(): (plaintext: Uint8Array) => Promise<Uint8Array> {
  const key = randomBytes(32);
  return async (plaintext) => {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    const sealed = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
    return new TextEncoder().encode(`v1:${nonce.toString('base64')}:${sealed.toString('base64')}`);
  };
}

/** `--env [project/]name`, defaulting to the stack's project and name. */
function environmentName(flag: unknown, project: string, stack: string): { project: string; name: string } {
  const text = typeof flag === 'string' ? flag : '';
  const slash = text.indexOf('/');
  if (slash >= 0) return { project: text.slice(0, slash), name: text.slice(slash + 1) };
  return { project, name: text !== '' ? text : stack };
}

/** Shows the value and the definition as Pulumi's preview (markdown, as printed without a terminal renderer). */
async function preview(ctx: CommandContext, valueJson: string, definition: string): Promise<void> {
  ctx.out(`# Value\n\`\`\`json\n${valueJson}\n\`\`\`\n# Definition\n\`\`\`yaml\n${definition}\n\`\`\`\n`);
}

/** `config env init [--env name] [--show-secrets] [--keep-config] [--yes]`. */
export const configEnvInit: CommandHandler = async (ctx, _args, opts) => {
  if (!ctx.skipConfirmations(opts.yes) && !ctx.interactive) {
    throw new UserError('--yes must be passed in to proceed when running in non-interactive mode', 'Re-run with --yes to create the environment.');
  }
  const showSecrets = opts.showSecrets === true;
  const { backend, ref, project, file, fileName } = await configTarget(ctx, opts);
  const target = environmentName(opts.env, project.name, ref.stack);
  ctx.out(`Creating environment ${target.project}/${target.name} for stack ${ref.stack}...`);

  const entries = file.entries();
  const plaintexts = await decryptConfig(backend, ref, entries, fileName);
  const config = Object.fromEntries(
    entries.map(([key, value]) => {
      const marked = mapSecureValues(value, (c) => new Secret(plaintexts.get(c)));
      return [key, coerceTopLevel(marked)];
    }),
  );
  const plainDefinition = stringify({ values: { pulumiConfig: definitionValue(config) } }, { indent: 2, sortMapEntries: true, lineWidth: 0 });
  const shownDefinition = showSecrets ? plainDefinition : await encryptSecrets(plainDefinition, previewSealer());

  const envs = backend.environments();
  const checked = await envs.checkYaml(ref.org, plainDefinition, showSecrets);
  if (!checked.environment || checked.diagnostics.length > 0) {
    throw new UserError(`internal error: ${propertyDiagnostics(checked.diagnostics).trim()}`);
  }
  await preview(ctx, goIndentJSON(toJSON({ value: checked.environment.properties }, !showSecrets)), shownDefinition);
  await ctx.confirm(opts.yes, 'create the environment', 'Save?');

  const envRef = { org: ref.org, project: target.project, name: target.name };
  await envs.create(envRef).catch((error: Error) => {
    throw new UserError(`creating environment: ${error.message}`);
  });
  const diagnostics = await envs.update(envRef, plainDefinition);
  if (diagnostics.length > 0) throw new UserError(`internal error creating environment: ${propertyDiagnostics(diagnostics).trim()}`);

  file.setEnvironments([...file.environments(), `${target.project}/${target.name}`]);
  if (opts.keepConfig !== true) file.replaceAll({});
  await file.save();
};
