/** `stackyard --version` wall time ÷ `node -e 0`, interleaved in the same run, median of several repetitions. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../cli/bin/stackyard.js', import.meta.url));
const reps = 15;

function time(args) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: 'ignore' });
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cli = [];
const bare = [];
time([bin, '--version']);
for (let i = 0; i < reps; i += 1) {
  bare.push(time(['-e', '0']));
  cli.push(time([bin, '--version']));
}
process.stdout.write(`bench cli-startup: ${(median(cli) / median(bare)).toFixed(2)}x (stackyard --version / node -e 0)\n`);
