/**
 * The packs a service requires for an update (`requiredPolicies` of the create-update answer), installed where the
 * `pulumi` CLI installs them: `$PULUMI_HOME/policies/<org>/pulumi-analyzer-<name>-v<version>` (Pulumi's
 * `GetPolicyPath`), so both CLIs share one copy. A version is downloaded once: the tarball from its `packLocation`,
 * its `package/` folder extracted into a temporary sibling folder, its dependencies installed there with `npm
 * install`, and only then renamed into place — a failed or interrupted install leaves nothing a later run would
 * take for installed.
 */
import { existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { extract } from 'tar';
import { PolicyPackInstallError, type RequiredPolicyPackSpec } from '../engine/plugins/analyzers/policy-packs.js';
import { pulumiHome } from '../plugins/cache.js';
import { npmInstall } from './npm-commands.js';
import type { RequiredPolicy } from './policy-types.js';

/** Where a required pack version lives (installed or not). */
export function requiredPackPath(env: NodeJS.ProcessEnv, org: string, policy: Pick<RequiredPolicy, 'name' | 'version' | 'versionTag'>): string {
  // an old @pulumi/policy published no version tag: the service's version number stands in (Pulumi's policyVersion)
  const version = policy.versionTag || String(policy.version);
  return join(pulumiHome(env), 'policies', org, `pulumi-analyzer-${policy.name.replaceAll('/', '_')}-v${version}`);
}

/** How to fetch a tarball and where progress lines go. */
export interface RequiredPackInstall {
  env: NodeJS.ProcessEnv;
  download(packLocation: string): Promise<Buffer>;
  onProgress?(line: string): void;
}

/** The pack's folder, downloading and installing it first unless an earlier run did. Errors name the pack. */
export async function ensureRequiredPack(org: string, policy: RequiredPolicy, o: RequiredPackInstall): Promise<string> {
  const final = requiredPackPath(o.env, org, policy);
  if (existsSync(final) && statSync(final).isDirectory()) return final;
  const id = `${policy.name}@v${policy.versionTag || policy.version}`;
  if (!policy.packLocation) throw new Error(`failed to download policy pack ${id}: the service gave no location to download it from`);
  o.onProgress?.(`Downloading policy pack ${id}`);
  let tarball: Buffer;
  try {
    tarball = await o.download(policy.packLocation);
  } catch (err) {
    throw new Error(`failed to download policy pack ${id}: ${(err as Error).message}`);
  }
  mkdirSync(dirname(final), { recursive: true });
  const staging = await mkdtemp(`${final}.tmp`);
  try {
    o.onProgress?.(`Installing policy pack ${id}`);
    await unpack(tarball, staging, id);
    if (!existsSync(join(staging, 'PulumiPolicy.yaml'))) throw new Error(`failed to install policy pack ${id}: the tarball holds no package/PulumiPolicy.yaml`);
    await npmInstall(staging, o.env).catch((err: Error) => {
      throw new Error(`failed to install policy pack ${id}: ${err.message}`);
    });
    try {
      renameSync(staging, final);
    } catch (err) {
      // another run installed the same version meanwhile: keep theirs
      if (!(existsSync(final) && statSync(final).isDirectory())) throw err;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return final;
}

/** Extracts the tarball's `package/` folder into `into` (tar refuses entries escaping it). */
async function unpack(tarball: Buffer, into: string, id: string): Promise<void> {
  const archive = join(dirname(into), `.${basename(into)}.tgz`);
  writeFileSync(archive, tarball);
  try {
    await extract({ file: archive, cwd: into, strict: true, strip: 1, filter: (path) => path.replace(/^\.\//, '').startsWith('package/') });
  } catch (err) {
    throw new Error(`failed to install policy pack ${id}: failed to extract tarball: ${(err as Error).message}`);
  } finally {
    rmSync(archive, { force: true });
  }
}

/**
 * Every required pack of an update installed (in parallel, as Pulumi's install manager does) and described for the
 * engine; the first failure is a `PolicyPackInstallError`, which fails the update before its program runs.
 */
export async function requiredPackSpecs(org: string, policies: readonly RequiredPolicy[], o: RequiredPackInstall): Promise<RequiredPolicyPackSpec[]> {
  const settled = await Promise.allSettled(policies.map((p) => ensureRequiredPack(org, p, o)));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw new PolicyPackInstallError((failed.reason as Error).message);
  return policies.map((p, i) => ({
    path: (settled[i] as PromiseFulfilledResult<string>).value,
    required: { name: p.name, version: p.versionTag || String(p.version), ...(p.config ? { config: p.config } : {}) },
  }));
}
