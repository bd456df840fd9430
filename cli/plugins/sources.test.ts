import { describe, expect, it } from 'vitest';
import { applyOverride, parseOverrides, sourceFor, type SourceRequest } from './sources.js';

async function requests(url: string | undefined, env: NodeJS.ProcessEnv = {}, release?: unknown): Promise<string[]> {
  const source = sourceFor({ kind: 'resource', name: 'aws', version: '6.1.0', ...(url ? { pluginDownloadURL: url } : {}) }, env);
  const out: string[] = [];
  const getJson = async (req: SourceRequest) => {
    out.push(`json ${req.url}`);
    return release ?? {};
  };
  try {
    for await (const req of source.archiveRequests('6.1.0', 'linux', 'amd64', getJson)) out.push(req.url);
  } catch (err) {
    out.push(`error ${(err as Error).message}`);
  }
  return out;
}

describe('plugin download sources', () => {
  it('tries Pulumi\'s GitHub release, then its API, then get.pulumi.com by default', async () => {
    expect(await requests(undefined)).toEqual([
      'https://github.com/pulumi/pulumi-aws/releases/download/v6.1.0/pulumi-resource-aws-v6.1.0-linux-amd64.tar.gz',
      'json https://api.github.com/repos/pulumi/pulumi-aws/releases/tags/v6.1.0',
      'https://get.pulumi.com/releases/plugins/pulumi-resource-aws-v6.1.0-linux-amd64.tar.gz',
    ]);
  });

  it('fills ${NAME}/${VERSION}/${OS}/${ARCH} in https URLs and appends the archive name', async () => {
    expect(await requests('https://example.com/p/${NAME}/${VERSION}/${OS}-${ARCH}/')).toEqual([
      'https://example.com/p/aws/6.1.0/linux-amd64/pulumi-resource-aws-v6.1.0-linux-amd64.tar.gz',
    ]);
  });

  it('reads github://host/org[/repo] through the releases API and gitlab://host/project from its downloads', async () => {
    const release = { assets: [{ name: 'pulumi-resource-aws-v6.1.0-linux-amd64.tar.gz', url: 'https://ghe.example/api/assets/7' }] };
    expect(await requests('github://ghe.example/acme', {}, release)).toEqual([
      'json https://ghe.example/repos/acme/pulumi-aws/releases/tags/v6.1.0',
      'https://ghe.example/api/assets/7',
    ]);
    expect(await requests('github://api.github.com/acme/custom-repo', {}, {})).toEqual([
      'json https://api.github.com/repos/acme/custom-repo/releases/tags/v6.1.0',
      "error plugin asset 'pulumi-resource-aws-v6.1.0-linux-amd64.tar.gz' not found in release v6.1.0 of github://api.github.com/acme/custom-repo",
    ]);
    expect(await requests('gitlab://gitlab.example/1234')).toEqual([
      'https://gitlab.example/api/v4/projects/1234/releases/v6.1.0/downloads/pulumi-resource-aws-v6.1.0-linux-amd64.tar.gz',
    ]);
  });

  it('applies PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES to the source URL, first match first, with named groups', async () => {
    const env = { PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: '^github://api.github.com/(?P<org>[^/]+)/(?P<repo>[^/]+)=https://mirror.example/${org}/${repo},^https://get.pulumi.com=https://never' };
    expect(await requests(undefined, env)).toEqual(['https://mirror.example/pulumi/pulumi-aws/pulumi-resource-aws-v6.1.0-linux-amd64.tar.gz']);
    expect(await requests('https://vendor.example/aws', env)).toEqual(['https://vendor.example/aws/pulumi-resource-aws-v6.1.0-linux-amd64.tar.gz']);
    expect(applyOverride(parseOverrides('^gitlab://(.*)$=https://m/$1'), 'gitlab://h/9')).toBe('https://m/h/9');
  });

  it('rejects malformed overrides and URLs with a message saying what is expected', () => {
    expect(() => parseOverrides('no-equals-sign')).toThrow(/expected format to be "regexp1=URL1,regexp2=URL2"/);
    expect(() => parseOverrides('(unclosed=https://x')).toThrow(/not a valid regular expression/);
    expect(() => sourceFor({ kind: 'resource', name: 'aws', pluginDownloadURL: 'github://api.github.com' }, {})).toThrow(/<host>\/<organization>\[\/<repository>\]/);
    expect(() => sourceFor({ kind: 'resource', name: 'aws', pluginDownloadURL: 'ftp://x/y' }, {})).toThrow(/unknown plugin source scheme: "ftp"/);
  });
});
