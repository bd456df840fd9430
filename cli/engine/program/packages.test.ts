import { describe, expect, it } from 'vitest';
import { PackageRefs } from './packages.js';
import { resproto } from '../rpc/proto.js';

function request(name: string, version: string, param?: { name: string; version: string; value: string }, url = ''): InstanceType<typeof resproto.RegisterPackageRequest> {
  const req = new resproto.RegisterPackageRequest().setName(name).setVersion(version).setDownloadUrl(url);
  if (param) req.setParameterization(new resproto.Parameterization().setName(param.name).setVersion(param.version).setValue(Buffer.from(param.value)));
  return req;
}

describe('RegisterPackage references (Pulumi resmon.RegisterPackage)', () => {
  it('gives the same package the same reference and a different package another', () => {
    const refs = new PackageRefs();
    const ext = { name: 'pkgExt', version: '0.5.0', value: 'replacement' };

    const a = refs.register(request('pkgA', '1.0.0', ext)).getRef();
    const again = refs.register(request('pkgA', '1.0.0', ext, 'https://example.com/')).getRef();
    const same = refs.register(request('pkgA', '1.0.0', ext)).getRef();
    const other = refs.register(request('pkgA', '1.0.0', { ...ext, value: 'other' })).getRef();
    const base = refs.register(request('pkgA', '1.0.0')).getRef();

    expect(same).toBe(a);
    expect(new Set([a, again, other, base]).size).toBe(4);
    const resolved = refs.resolve(a);
    expect(resolved).toMatchObject({ name: 'pkgA', version: '1.0.0', parameterization: { name: 'pkgExt', version: '0.5.0' } });
    expect(Buffer.from(resolved!.parameterization!.value).toString()).toBe('replacement');
    expect(refs.resolve(again)?.pluginDownloadURL).toBe('https://example.com');
    expect(refs.resolve('')).toBeUndefined();
  });

  it('refuses what Pulumi refuses: an empty name, a version that is not semver, an unknown reference; and extensions, which are not supported yet', () => {
    const refs = new PackageRefs();
    const extension = request('pkgA', '1.0.0').setExtension$(new resproto.Parameterization().setName('ext').setVersion('1.0.0'));

    expect(() => refs.register(request('', '1.0.0'))).toThrow('package name is empty');
    expect(() => refs.register(request('pkgA', '1.0'))).toThrow('parse package version 1.0');
    expect(() => refs.register(request('pkgA', '1.0.0', { name: 'x', version: 'v2', value: '' }))).toThrow('parse parameter version v2');
    expect(() => refs.register(extension)).toThrow('extension parameterization');
    expect(() => refs.resolve('nope')).toThrow("unknown provider package 'nope'");
  });
});
