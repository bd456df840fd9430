/**
 * `policy publish [org-name]`: publishes the pack in the current folder as `pulumi policy publish` does — the pack is
 * started to read its name, version and policies, packed with `npm pack`, then created on the service, uploaded to the
 * location the service answers, and marked complete.
 */
import { checkPolicyPackVersion } from '../../backend/policy-backend.js';
import type { AnalyzerInfo } from '../../engine/plugins/analyzers/analyzer-types.js';
import { launchPack } from '../../engine/plugins/analyzers/pack-launch.js';
import { withBareEndpoint } from '../../engine/plugins/plugin-host.js';
import { UserError } from '../../output/errors.js';
import { findPolicyPackRoot, npmPack } from '../../policy/npm-commands.js';
import type { CreatePolicyPackRequest } from '../../policy/policy-types.js';
import type { CommandHandler } from '../types.js';
import { orgArgument } from './policy-target.js';

/** GetAnalyzerInfo of the pack at `dir`, asked with no stack (a publish runs no program). */
function packInfo(dir: string, org: string, env: NodeJS.ProcessEnv): Promise<AnalyzerInfo> {
  return withBareEndpoint(async (engineAddress) => {
    const settings = { organization: org, project: '', stack: '', dryRun: false, config: {}, configSecretKeys: [] };
    const client = await launchPack(dir, { engineAddress, settings, env }).catch((err: unknown) => {
      throw new UserError((err as Error).message, 'Install the pack\'s dependencies (npm install) and check that it runs with `stackyard preview --policy-pack <dir>`.');
    });
    try {
      return await client.analyzerInfo();
    } finally {
      await client.close();
    }
  });
}

/** `CreatePolicyPackRequest` from the pack's answer (Pulumi's `PublishPolicyPack` step 1). */
export function createPackRequest(info: AnalyzerInfo): CreatePolicyPackRequest {
  return {
    name: info.name,
    displayName: info.displayName ?? '',
    versionTag: info.version,
    policies: info.policies.map((p) => ({
      name: p.name,
      displayName: p.displayName ?? '',
      description: p.description,
      enforcementLevel: p.enforcementLevel,
      message: p.message ?? '',
      ...(p.configSchema ? { configSchema: { type: 'object' as const, properties: p.configSchema.properties, required: p.configSchema.required } } : {}),
    })),
    runtime: 'nodejs',
  };
}

export const policyPublish: CommandHandler = async (ctx, args) => {
  const backend = await ctx.backend();
  const org = await orgArgument(backend, args[0]);
  if (org.includes('/')) throw new UserError('organization name must not contain slashes');
  const policies = backend.policies();
  const root = findPolicyPackRoot(ctx.cwd);
  if (!root) throw new UserError(`no PulumiPolicy.yaml project file found (searching upwards from ${ctx.cwd})`, 'Run `stackyard policy publish` in the folder of a policy pack (`stackyard policy new` makes one).');
  ctx.out('Obtaining policy metadata from policy plugin');
  const info = await packInfo(root, org, ctx.env);
  checkPolicyPackVersion(info.version);
  ctx.out('Compressing policy pack');
  const tarball = await npmPack(root, ctx.env, (text) => process.stderr.write(text));
  ctx.out('Uploading policy pack to Pulumi service');
  ctx.out(`Publishing "${info.name}"${info.version ? ` - version ${info.version}` : ''} to "${org}"`);
  const version = await policies.publish(org, createPackRequest(info), tarball);
  if (!info.version) ctx.out(`Published as version ${version}`);
};
