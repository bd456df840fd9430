/**
 * The selected stack of each project, per backend, kept in `$STACKYARD_HOME/workspaces/` like Pulumi's workspace
 * files (one file per project folder, so two checkouts of one project select stacks independently).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stackyardHome, writePrivateJson } from '../credentials.js';
import { sha1Hex } from './digests.js';
import type { Project } from './project.js';

interface WorkspaceFile {
  /** Fully qualified stack name (`org/project/stack`) keyed by backend URL. */
  stacks: Record<string, string>;
}

function workspacePath(project: Project, env: NodeJS.ProcessEnv): string {
  // Pulumi's name: the SHA-1 of the project file's path.
  const hash = sha1Hex(project.file);
  return join(stackyardHome(env), 'workspaces', `${project.name}-${hash}-workspace.json`);
}

/** Synchronously, as readCredentials (credentials.ts) explains. */
function readWorkspace(project: Project, env: NodeJS.ProcessEnv): WorkspaceFile {
  try {
    const parsed = JSON.parse(readFileSync(workspacePath(project, env), 'utf8')) as Partial<WorkspaceFile>;
    return { stacks: parsed.stacks ?? {} };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { stacks: {} };
    throw error;
  }
}

/** The stack selected for this project on this backend (fully qualified), if any. */
export async function selectedStack(project: Project, backendUrl: string, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  return readWorkspace(project, env).stacks[backendUrl];
}

/** Selects a stack (fully qualified name), or clears the selection with `undefined`. */
export async function selectStack(project: Project, backendUrl: string, stack: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const workspace = readWorkspace(project, env);
  if (stack === undefined) delete workspace.stacks[backendUrl];
  else workspace.stacks[backendUrl] = stack;
  await writePrivateJson(workspacePath(project, env), workspace);
}
