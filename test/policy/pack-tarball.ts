/**
 * The publishable fixture pack as `policy publish` uploads it (`npm pack`), its dependencies pointed at the
 * repository's own `@pulumi/policy` and `@pulumi/pulumi` with `file:` links, so installing it (`npm install`)
 * needs no registry: the way fixture packs resolve those modules today, made explicit for a pack living elsewhere.
 */
import { cpSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { npmPack } from '../../cli/policy/npm-commands.js';
import { REPO } from '../cli/cli-harness.js';

/** A copy of `test/fixtures/policy/packs/publishable` whose dependencies install offline, ready to publish. */
export function publishablePackDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'stackyard-pack-'));
  cpSync(join(REPO, 'test/fixtures/policy/packs/publishable'), dir, { recursive: true });
  const modules = realpathSync(join(REPO, 'node_modules'));
  const pkg = {
    name: 'publishable-policy-pack',
    version: '0.0.1',
    main: 'index.js',
    dependencies: { '@pulumi/policy': `file:${join(modules, '@pulumi/policy')}`, '@pulumi/pulumi': `file:${join(modules, '@pulumi/pulumi')}` },
  };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg));
  return dir;
}

/** The tarball of the publishable pack with offline-installable dependencies. */
export function publishableTarball(): Promise<Buffer> {
  return npmPack(publishablePackDir(), process.env, () => undefined);
}
