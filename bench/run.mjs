// Runs every bench/*.bench.mjs in its own process, one after the other (benchmarks must not share the 2 cores),
// and fails if any of them fails. Each benchmark prints its own `bench <id>: <ratio>x (…)` line.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(benchDir)
  .filter((name) => name.endsWith('.bench.mjs'))
  .filter((name) => only.length === 0 || only.some((id) => name.startsWith(id)))
  .sort();

let failed = 0;
for (const file of files) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(benchDir, file)], {
    cwd: join(benchDir, '..'),
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    failed += 1;
    console.error(`bench ${file}: failed with exit code ${result.status}`);
  }
}
process.exit(failed === 0 ? 0 : 1);
