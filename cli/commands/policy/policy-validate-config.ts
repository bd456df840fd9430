/**
 * `policy validate-config <org-name>/<policy-pack-name> <version> --config <file>`: checks a config file against the
 * published version's config schema (Pulumi's `ValidatePolicyPackConfig`: each policy's entry, `{}` when the file
 * has none, against its schema; the first failing policy's errors end the check).
 */
import { validateSchema } from '../../../shared/core/policy/config-schema.js';
import { UserError } from '../../output/errors.js';
import type { CommandHandler } from '../types.js';
import { readPolicyConfigForService } from './policy-config-file.js';
import { packTarget } from './policy-target.js';

export const policyValidateConfig: CommandHandler = async (ctx, args, opts) => {
  if (typeof opts.config !== 'string' || opts.config === '') throw new UserError('required flag(s) "config" not set');
  const pack = await packTarget(ctx, args[0]!);
  const config = readPolicyConfigForService(opts.config);
  const { configSchema = {} } = await pack.policies.schema(pack.org, pack.name, args[1]!);
  for (const policy of Object.keys(configSchema).sort()) {
    const errors = validateSchema(configSchema[policy] as unknown as Record<string, unknown>, config[policy] ?? {}, 'description');
    if (errors.length) throw new UserError(`policy pack configuration is invalid: ${errors.join(', ')}`);
  }
  ctx.out('Policy Pack configuration is valid.');
};
