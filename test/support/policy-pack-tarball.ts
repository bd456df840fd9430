import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The pack tests publish (test/fixtures/policy/packs/published): policies `has-owner-tag` and `few-resources`. */
export const PUBLISHED_PACK = fileURLToPath(new URL('../fixtures/policy/packs/published', import.meta.url));

/** The policies `pulumi policy publish` reports for PUBLISHED_PACK (its analyzer's GetAnalyzerInfo). */
export const PUBLISHED_PACK_POLICIES = [
  {
    name: 'has-owner-tag',
    displayName: '',
    description: 'Every resource with tags carries the configured tag.',
    enforcementLevel: 'mandatory',
    message: '',
    configSchema: { type: 'object', properties: { tag: { type: 'string', minLength: 1 } }, required: ['tag'] },
  },
  { name: 'few-resources', displayName: '', description: 'Stacks stay small.', enforcementLevel: 'advisory', message: '' },
];

const packed = new Map<string, Buffer>();

/** The tarball `npm pack` makes of a pack folder, as `pulumi policy publish` uploads it (packed once per process). */
export function npmPack(folder: string = PUBLISHED_PACK): Buffer {
  const cached = packed.get(folder);
  if (cached) return cached;
  const out = mkdtempSync(join(tmpdir(), 'stackyard-npm-pack-'));
  try {
    const name = execFileSync('npm', ['pack', folder, '--pack-destination', out, '--offline', '--silent'], { encoding: 'utf8', timeout: 60_000 }).trim();
    const tarball = readFileSync(join(out, name.split('\n').pop()!));
    packed.set(folder, tarball);
    return tarball;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
