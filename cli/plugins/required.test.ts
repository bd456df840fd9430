import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultProviderName } from '../engine/plugins/providers/provider-registry.js';
import { nodeRequiredPlugins, statePlugins } from './required.js';

function pkg(dir: string, json: unknown): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify(json));
}

describe('required plugins', () => {
  it('reads resource plugins from node_modules packages, scoped, nested and linked, as pulumi-language-nodejs does', () => {
    const root = mkdtempSync(join(tmpdir(), 'stackyard-required-'));
    const nm = join(root, 'prog', 'node_modules');
    pkg(join(nm, '@pulumi/aws'), { name: '@pulumi/aws', version: '6.52.0', pulumi: { resource: true } });
    pkg(join(nm, '@acme/thing'), { name: '@acme/thing', version: '1.0.0', pulumi: { resource: true, name: 'acme', version: 'v2.1.0', server: 'github://api.github.com/acme' } });
    pkg(join(nm, 'lodash'), { name: 'lodash', version: '4.17.21' });
    pkg(join(nm, 'lodash/node_modules/@pulumi/random'), { name: '@pulumi/random', version: '4.16.0', pulumi: { resource: true } });
    pkg(join(nm, '@pulumi/pulumi'), { name: '@pulumi/pulumi', version: '3.248.0', pulumi: { resource: false } });
    pkg(join(root, 'elsewhere/gcp'), { name: '@pulumi/gcp', version: '8.0.0', pulumi: { resource: true } });
    symlinkSync(join(root, 'elsewhere/gcp'), join(nm, '@pulumi/gcp'));

    const found = nodeRequiredPlugins(join(root, 'prog'));

    expect(found.sort((a, b) => (a.name < b.name ? -1 : 1))).toEqual([
      { kind: 'resource', name: 'acme', version: '2.1.0', pluginDownloadURL: 'github://api.github.com/acme' },
      { kind: 'resource', name: 'aws', version: '6.52.0' },
      { kind: 'resource', name: 'gcp', version: '8.0.0' },
      { kind: 'resource', name: 'random', version: '4.16.0' },
    ]);
  });

  it('reads the state\'s providers: version, __internal.pluginDownloadURL, checksums', () => {
    expect(
      statePlugins([
        { type: 'pulumi:providers:aws', inputs: { region: 'us-east-1', version: '6.52.0', __internal: { pluginDownloadURL: 'https://mirror/aws' } } },
        { type: 'pulumi:providers:random', inputs: { version: '4.16.0', pluginChecksums: { 'linux-amd64': 'ab'.repeat(32) } } },
        { type: 'aws:s3/bucket:Bucket', inputs: {} },
        // a config key `name` in a state written without `__internal` is config, not the plugin's name
        { type: 'pulumi:providers:kubernetes', inputs: { name: 'cluster-a' } },
        { type: 'pulumi:providers:pkgExt', inputs: { version: '0.5.0', __internal: { name: 'terraform-provider', version: '1.0.0', parameterization: 'eA==' } } },
      ]),
    ).toEqual([
      { kind: 'resource', name: 'aws', version: '6.52.0', pluginDownloadURL: 'https://mirror/aws' },
      { kind: 'resource', name: 'random', version: '4.16.0', checksums: { 'linux-amd64': 'ab'.repeat(32) } },
      { kind: 'resource', name: 'kubernetes' },
      { kind: 'resource', name: 'terraform-provider', version: '1.0.0' },
    ]);
  });

  it('names default providers as Pulumi does, the download URL included', () => {
    expect(defaultProviderName('0.18.1', 'pulumi.com/pkg')).toBe('default_0_18_1_pulumi.com/pkg');
    expect(defaultProviderName('0.17.7-dev.1555435978+gb7030aa4.dirty', 'company.com/artifact-storage/pkg')).toBe(
      'default_0_17_7_dev_1555435978_gb7030aa4_dirty_company.com/artifact-storage/pkg',
    );
    expect(defaultProviderName(undefined, 'company.com/')).toBe('default_company.com');
    expect(defaultProviderName('1.0.0', 'http://127.0.0.1:8080/dl')).toBe('default_1_0_0_http_/127.0.0.1_8080/dl');
  });
});
