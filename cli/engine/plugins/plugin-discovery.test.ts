import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findProviderPlugin, MissingPluginError } from './plugin-discovery.js';

function executable(path: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
  return path;
}

describe('findProviderPlugin', () => {
  const root = mkdtempSync(join(tmpdir(), 'stackyard-discovery-'));
  const home = join(root, 'home');
  const cache = (v: string) => executable(join(home, 'plugins', `resource-acme-v${v}`, 'pulumi-resource-acme'));
  const v1 = cache('1.2.0');
  const v2 = cache('1.10.0');
  const onPath = executable(join(root, 'bin', 'pulumi-resource-acme'));
  const declared = executable(join(root, 'project', 'plugins', 'acme', 'pulumi-resource-acme'));
  const base = { programDir: join(root, 'project') };

  it('prefers a plugin declared in Pulumi.yaml, then PATH, then the plugin cache', () => {
    const env = { PULUMI_HOME: home, PATH: join(root, 'bin') };
    expect(findProviderPlugin('acme', '1.2.0', { ...base, env, projectPlugins: [{ name: 'acme', path: 'plugins/acme' }] }).command).toBe(declared);
    expect(findProviderPlugin('acme', '1.2.0', { ...base, env }).command).toBe(onPath);
    expect(findProviderPlugin('acme', '1.2.0', { ...base, env: { PULUMI_HOME: home, PATH: '' } }).command).toBe(v1);
  });

  it('takes the highest cached version when none is asked for', () => {
    expect(findProviderPlugin('acme', undefined, { ...base, env: { PULUMI_HOME: home, PATH: '' } }).command).toBe(v2);
  });

  it('names the package, version and install command when nothing is found', () => {
    const find = () => findProviderPlugin('acme', '9.9.9', { ...base, env: { PULUMI_HOME: home, PATH: '' } });
    expect(find).toThrow(MissingPluginError);
    expect(find).toThrow(/stackyard plugin install resource acme v9\.9\.9/);
  });
});
