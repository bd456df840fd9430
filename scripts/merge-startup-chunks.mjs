/**
 * Merges the chunks `stackyard stack ls` loads into the entry file, after the split build.
 *
 * esbuild puts every set of modules shared by a different set of lazily loaded parts into a chunk of its own, so
 * listing stacks loaded 31 files. On Node 20 each ES module costs about 0.4 ms of CPU to resolve, read, compile and
 * link, about 14 ms in all, as much as the rest of the command. esbuild cannot be told which chunks to merge, so this
 * bundles the entry again with those chunks inside. Each merged chunk's file is then replaced by a file that
 * re-exports its exports from the entry, so every other chunk that imports it shares the one copy of its modules.
 */
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { compileModuleBodiesEagerly } from './compile-eagerly.mjs';

/**
 * The parts `stack ls` on a local backend loads lazily besides the entry: the command context, the command, the
 * local backend and the stack service. They and the chunks they import are merged.
 */
const STARTUP_ENTRIES = ['cli/commands/context.ts', 'cli/commands/stack-ls.ts', 'cli/backend/local-backend.ts', 'shared/core/stacks/stack-service.ts'];

/**
 * @param {string} root the repository folder (ends with a slash), where the metafile's paths start
 * @param {string} entry the entry file, relative to `root` (dist/cli/stackyard.mjs)
 * @param {import('esbuild').Metafile} metafile the split build's
 * @param {string} banner the split build's banner (every chunk starts with it): the merged file has it once
 */
export async function mergeStartupChunks(root, entry, metafile, banner) {
  const outputs = metafile.outputs;
  const byEntryPoint = new Map(Object.entries(outputs).map(([path, output]) => [output.entryPoint, path]));
  const merged = new Set();
  const visit = (path) => {
    if (merged.has(path)) return;
    merged.add(path);
    for (const imported of outputs[path].imports) if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
  };
  visit(entry);
  for (const source of STARTUP_ENTRIES) {
    const path = byEntryPoint.get(source);
    if (!path) throw new Error(`merge-startup-chunks: no chunk has entry point ${source}; update STARTUP_ENTRIES`);
    visit(path);
  }
  const chunks = [...merged].filter((path) => path !== entry);

  // Every merged chunk's exports, re-exported by the entry under names of their own: `c<i>_<name>`.
  const reexports = chunks.map((path, i) => {
    const names = outputs[path].exports;
    const from = `./${relative(dirname(entry), path)}`;
    return names.length ? `export { ${names.map((n) => `${n} as c${i}_${n}`).join(', ')} } from ${JSON.stringify(from)};` : `import ${JSON.stringify(from)};`;
  });
  const entryPath = join(root, entry);
  const mergedSet = new Set([...merged].map((path) => join(root, path)));
  const withoutBanner = (path) => {
    const text = readFileSync(path, 'utf8');
    if (!text.startsWith(banner)) throw new Error(`merge-startup-chunks: ${path} does not start with the build's banner`);
    return text.slice(banner.length);
  };
  await build({
    absWorkingDir: root,
    stdin: { contents: `${withoutBanner(entryPath)}\n${reexports.join('\n')}\n`, sourcefile: entryPath, resolveDir: dirname(entryPath), loader: 'js' },
    outfile: entryPath,
    allowOverwrite: true,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    banner: { js: banner },
    logLevel: 'warning',
    plugins: [
      {
        name: 'merge-startup-chunks',
        setup(b) {
          // Merged chunks are bundled; every other file stays where it is, imported by its path from the entry.
          b.onResolve({ filter: /^\.\.?\// }, (args) => {
            const path = join(args.resolveDir, args.path);
            if (mergedSet.has(path)) return { path };
            return { path: `./${relative(dirname(entryPath), path)}`, external: true };
          });
          b.onLoad({ filter: /\.mjs$/ }, (args) => (mergedSet.has(args.path) ? { contents: withoutBanner(args.path), loader: 'js' } : undefined));
        },
      },
    ],
  });
  writeFileSync(entryPath, compileModuleBodiesEagerly(readFileSync(entryPath, 'utf8')).text);
  for (const [i, path] of chunks.entries()) {
    const names = outputs[path].exports;
    const from = JSON.stringify(relative(dirname(path), entry).replace(/^(?!\.)/, './'));
    writeFileSync(join(root, path), names.length ? `export { ${names.map((n) => `c${i}_${n} as ${n}`).join(', ')} } from ${from};\n` : `import ${from};\n`);
    rmSync(join(root, `${path}.map`), { force: true });
  }
  return chunks.length;
}
