/**
 * `stackyard about [--json] [-s stack]`: what `pulumi about` prints, for bug reports: the CLI, the plugins the
 * project uses, the host, the project's runtime, the current stack, the backend, the PULUMI_/STACKYARD_ variables
 * that are set, and the program's dependencies. A section that cannot be read becomes an entry of `errors`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { arch, machine, platform, release } from 'node:os';
import { join } from 'node:path';
import { projectPluginReport } from '../engine/plugins/languages/project-plugins.js';
import { programDirOf } from '../plugins/project-plugins.js';
import { compareVersions } from '../plugins/version.js';
import { STACKYARD_VERSION } from '../version.js';
import type { CommandHandler } from './types.js';

/** The sections, with `pulumi about --json`'s keys (`cliAbout` carries Node's version where Pulumi has Go's). */
interface Summary {
  plugins: { name: string; version: string | null; kind: string }[] | null;
  host: { os: string; version: string; arch: string };
  backend: { name: string; url: string; user: string; organizations: string[] } | null;
  currentStack: { name: string; fullyQualifiedName: string; resources: { type: string; urn: string }[]; pendingOps: { type: string; urn: string }[] } | null;
  cliAbout: { version: string; nodeVersion: string };
  runtime: Record<string, string> | null;
  dependencies: { name: string; version: string }[] | null;
  errors: string[];
}

/** The OS as gopsutil names it on Linux (`/etc/os-release` ID and VERSION_ID), else the platform and kernel release. */
function hostAbout(): Summary['host'] {
  const machineArch = typeof machine === 'function' ? machine() : arch();
  if (platform() === 'linux' && existsSync('/etc/os-release')) {
    const fields = Object.fromEntries(
      readFileSync('/etc/os-release', 'utf8')
        .split('\n')
        .map((l) => /^([A-Z_]+)=("?)(.*)\2$/.exec(l))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => [m[1], m[3]]),
    );
    return { os: fields.ID ?? 'linux', version: fields.VERSION_ID ?? release(), arch: machineArch };
  }
  return { os: platform(), version: release(), arch: machineArch };
}

/** The program's direct dependencies with their installed versions (Node.js programs). */
function nodeDependencies(programDir: string): Summary['dependencies'] {
  const pkgFile = join(programDir, 'package.json');
  if (!existsSync(pkgFile)) return null;
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  return Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })
    .sort()
    .map((name) => {
      const installed = join(programDir, 'node_modules', name, 'package.json');
      const version = existsSync(installed) ? ((JSON.parse(readFileSync(installed, 'utf8')) as { version?: string }).version ?? '') : '';
      return { name, version: version || 'not installed' };
    });
}

const SECRET_NAME = /TOKEN|SECRET|PASSPHRASE|PASSWORD|KEY/;

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]! + 2)).join('').trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
}

function render(s: Summary, env: NodeJS.ProcessEnv): string {
  const parts: string[] = [];
  parts.push(table(['CLI', ''], [['Version', s.cliAbout.version], ['Node Version', s.cliAbout.nodeVersion]]));
  if (s.plugins) parts.push(`Plugins\n${table(['KIND', 'NAME', 'VERSION'], s.plugins.map((p) => [p.kind, p.name, p.version ?? 'unknown']))}`);
  parts.push(table(['Host', ''], [['OS', s.host.os], ['Version', s.host.version], ['Arch', s.host.arch]]));
  if (s.runtime) {
    const params = Object.entries(s.runtime).filter(([k]) => k !== 'language').map(([k, v]) => `${k}='${v}'`);
    parts.push(`This project is written in ${s.runtime.language}${params.length ? `: ${params.join(' ')}` : ''}\n`);
  }
  if (s.currentStack) {
    const c = s.currentStack;
    const resources = c.resources.length
      ? `Current Stack resources (${c.resources.length}):\n${table(['TYPE', 'URN'], c.resources.map((r) => [r.type, r.urn]))}`
      : `Found no resources associated with ${c.name}\n`;
    const pending = c.pendingOps.length
      ? `Found ${c.pendingOps.length} pending operations associated with ${c.name}:\n${table(['OPP TYPE', 'URN'], c.pendingOps.map((r) => [r.type, r.urn]))}`
      : `Found no pending operations associated with ${c.name}\n`;
    parts.push(`Current Stack: ${c.fullyQualifiedName}\n\n${resources}\n${pending}`);
  }
  if (s.backend) {
    parts.push(table(['Backend', ''], [['Name', s.backend.name], ['URL', s.backend.url], ['User', s.backend.user], ['Organizations', s.backend.organizations.join(', ')], ['Token type', 'personal']]));
  }
  const vars = Object.entries(env)
    .filter(([k, v]) => /^(PULUMI|STACKYARD)_/.test(k) && v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => [k, SECRET_NAME.test(k) ? '[secret]' : v!]);
  if (vars.length) parts.push(table(['Name', 'Value'], vars));
  if (s.dependencies) parts.push(`Dependencies:\n${table(['NAME', 'VERSION'], s.dependencies.map((d) => [d.name, d.version]))}`);
  return parts.join('\n');
}

export const about: CommandHandler = async (ctx, _args, opts) => {
  const errors: string[] = [];
  const attempt = async <T>(what: string, fn: () => Promise<T>): Promise<T | null> => {
    try {
      return await fn();
    } catch (err) {
      errors.push(`Failed to ${what}: ${err instanceof Error ? err.message : String(err)}`);
      return null;
    }
  };
  const project = await ctx.project();
  const report = project ? await attempt('get information about the plugins of the project', () => projectPluginReport(project.raw, project.dir, ctx.env, STACKYARD_VERSION)) : null;
  const plugins = report
    ? [{ kind: 'language', name: report.language.name, version: report.language.version ?? null }, ...report.plugins.map((p) => ({ kind: p.kind, name: p.name, version: p.version ?? null }))].sort((a, b) =>
        a.name !== b.name ? (a.name < b.name ? -1 : 1) : a.version && b.version ? compareVersions(b.version, a.version) : 0,
      )
    : null;
  const runtimeName = report?.language.name;
  const runtime: Record<string, string> | null = runtimeName === 'nodejs' ? { language: 'nodejs', executable: process.execPath, version: process.version } : runtimeName ? { language: runtimeName, ...(report?.language.version ? { version: report.language.version } : {}) } : null;
  const backend = await attempt('get information about the backend', async () => {
    const b = await ctx.backend();
    const who = await b.whoami();
    return { name: b.kind === 'local' ? 'local' : new URL(b.url).host, url: b.url, user: who.user, organizations: who.organizations };
  });
  const currentStack = project
    ? await attempt('get information about the current stack', async () => {
        const { backend: b, ref } = await ctx.resolveStack(typeof opts.stack === 'string' ? opts.stack : undefined);
        const exported = await b.exportDeployment(ref);
        const deployment = (exported.deployment ?? {}) as { resources?: { type: string; urn: string }[]; pending_operations?: { type: string; resource: { urn: string } }[] };
        return {
          name: ref.stack,
          fullyQualifiedName: `${ref.org}/${ref.project}/${ref.stack}`,
          resources: (deployment.resources ?? []).map((r) => ({ type: r.type, urn: r.urn })),
          pendingOps: (deployment.pending_operations ?? []).map((o) => ({ type: o.type, urn: o.resource.urn })),
        };
      })
    : null;
  const summary: Summary = {
    plugins,
    host: hostAbout(),
    backend,
    currentStack,
    cliAbout: { version: STACKYARD_VERSION, nodeVersion: process.version },
    runtime,
    dependencies: project && runtimeName === 'nodejs' ? nodeDependencies(programDirOf(project.raw, project.dir)) : null,
    errors,
  };
  if (opts.json) {
    ctx.json(summary);
    return;
  }
  process.stdout.write(render(summary, ctx.env));
  for (const e of errors) process.stderr.write(`warning: ${e}\n`);
};
