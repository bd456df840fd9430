/**
 * The reading of a Pulumi.yaml the engine needs. Apart from engine-command.ts, so building the command tree does not
 * load the plugin resolver (and semver) that reading declared plugins needs.
 */
import type { ProgramSpec } from '../engine/program/language-host.js';
import type { ProjectPlugin } from '../engine/plugins/plugin-discovery.js';
import { declaredPlugins } from '../plugins/project-plugins.js';

/** Program location, runtime options and declared plugins. */
export function programFromProject(project: unknown, rootDir: string, stack: string): { program: ProgramSpec; projectPlugins: ProjectPlugin[] } {
  const p = (project ?? {}) as { name?: unknown; main?: unknown; runtime?: unknown };
  if (typeof p.name !== 'string' || p.name === '') throw new Error('Pulumi.yaml has no project name');
  const runtime = typeof p.runtime === 'string' ? { name: p.runtime } : ((p.runtime ?? {}) as { name?: unknown; options?: Record<string, unknown> });
  if (typeof runtime.name !== 'string' || runtime.name === '') throw new Error('Pulumi.yaml has no runtime (e.g. `runtime: nodejs`)');
  const o = runtime.options ?? {};
  const program: ProgramSpec = {
    rootDir,
    project: p.name,
    stack,
    main: typeof p.main === 'string' ? p.main : undefined,
  };
  if (runtime.name === 'nodejs') {
    // the in-process path: Node.js programs run without a language plugin
    program.runtimeOptions = {
      typescript: typeof o.typescript === 'boolean' ? o.typescript : undefined,
      nodeargs: typeof o.nodeargs === 'string' ? o.nodeargs : undefined,
      tsconfig: typeof o.tsconfig === 'string' ? o.tsconfig : undefined,
    };
  } else {
    program.runtime = { name: runtime.name, options: o };
  }
  const projectPlugins: ProjectPlugin[] = declaredPlugins((project ?? {}) as Record<string, unknown>);
  return { program, projectPlugins };
}
