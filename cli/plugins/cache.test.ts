import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listInstalledPlugins, parsePluginDirName, selectPlugin } from './cache.js';
import type { InstalledPlugin } from './types.js';

const plugin = (name: string, version: string): InstalledPlugin => ({ kind: 'resource', name, version, path: `/p/resource-${name}-v${version}` });

describe('the plugin cache', () => {
  it('reads folder names as Pulumi does: greedy name, tolerant version, known kinds only', () => {
    expect(parsePluginDirName('resource-aws-v6.1.0')).toEqual({ kind: 'resource', name: 'aws', version: '6.1.0' });
    expect(parsePluginDirName('resource-foo-v2-v1.2')).toEqual({ kind: 'resource', name: 'foo-v2', version: '1.2.0' });
    expect(parsePluginDirName('language-yaml-v1.10.0-alpha.1')).toEqual({ kind: 'language', name: 'yaml', version: '1.10.0-alpha.1' });
    expect(parsePluginDirName('widget-aws-v1.0.0')).toBeUndefined();
    expect(parsePluginDirName('resource-aws-v1.0.0.tmp123456')).toBeUndefined();
    expect(parsePluginDirName('resource-aws-v1.0.0.lock')).toBeUndefined();
  });

  it('skips folders with a .partial marker and files', () => {
    const home = mkdtempSync(join(tmpdir(), 'stackyard-cache-'));
    const dir = join(home, 'plugins');
    mkdirSync(join(dir, 'resource-aa-v1.0.0'), { recursive: true });
    mkdirSync(join(dir, 'resource-bb-v1.0.0'));
    writeFileSync(join(dir, 'resource-bb-v1.0.0.partial'), '');
    writeFileSync(join(dir, 'resource-cc-v1.0.0'), '');
    expect(listInstalledPlugins({ PULUMI_HOME: home }).map((p) => p.name)).toEqual(['aa']);
  });

  it('selects the exact version when one is asked for, else the newest release over pre-releases', () => {
    const installed = [plugin('aws', '6.1.0'), plugin('aws', '6.10.0'), plugin('aws', '7.0.0-alpha.1'), plugin('gcp', '9.0.0')];
    expect(selectPlugin(installed, { kind: 'resource', name: 'aws', version: '6.1.0' })?.version).toBe('6.1.0');
    expect(selectPlugin(installed, { kind: 'resource', name: 'aws', version: '6.2.0' })).toBeUndefined();
    expect(selectPlugin(installed, { kind: 'resource', name: 'aws' })?.version).toBe('6.10.0');
    expect(selectPlugin(installed, { kind: 'language', name: 'aws' })).toBeUndefined();
  });
});
