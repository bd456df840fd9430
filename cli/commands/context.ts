/**
 * What every non-engine command shares: the global flags, whether we may prompt, the backend (opened once, closed
 * after the command), the project, and turning a stack name (or the selected stack) into a full reference.
 */
import { formatStackRef, parseStackRef, type StackRef } from '../../shared/core/names.js';
import type { Backend } from '../backend/backend.js';
import { currentBackend } from '../backend/open-backend.js';
import { UserError } from '../output/errors.js';
import { findProject, requireProject, type Project } from '../project/project.js';
import { selectedStack } from '../project/workspace.js';

export interface GlobalOptions {
  stack?: string;
  nonInteractive?: boolean;
}

/** A stack a command operates on. */
export interface ResolvedStack {
  backend: Backend;
  ref: StackRef;
  project?: Project;
}

function truthy(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

export class CommandContext {
  private backendPromise?: Promise<Backend>;
  private projectPromise?: Promise<Project | undefined>;
  private interactiveAnswer?: boolean;
  readonly env: NodeJS.ProcessEnv;

  constructor(
    readonly globals: GlobalOptions,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.env = env;
  }

  /**
   * Prompts are allowed: a terminal on both ends, not CI, no `--non-interactive`. Worked out when first asked:
   * reading `process.stdin` opens standard input, which a command that never prompts (`stack ls`) need not do.
   */
  get interactive(): boolean {
    this.interactiveAnswer ??=
      !this.globals.nonInteractive &&
      !truthy(this.env.CI) &&
      !truthy(this.env.PULUMI_NON_INTERACTIVE) &&
      process.stdin.isTTY === true &&
      process.stdout.isTTY === true;
    return this.interactiveAnswer;
  }

  get cwd(): string {
    return process.cwd();
  }

  backend(): Promise<Backend> {
    this.backendPromise ??= currentBackend(this.env, this.cwd);
    return this.backendPromise;
  }

  project(): Promise<Project | undefined> {
    this.projectPromise ??= findProject(this.cwd, this.env);
    return this.projectPromise;
  }

  async requireProject(): Promise<Project> {
    return (await this.project()) ?? requireProject(this.cwd);
  }

  /**
   * The stack named by `name` (`stack`, `org/stack` or `org/project/stack`), else the one selected for this
   * project. Short names take the backend's default organization and the current project.
   */
  async resolveStack(name: string | undefined): Promise<ResolvedStack> {
    const backend = await this.backend();
    const project = await this.project();
    let text = name ?? this.globals.stack;
    if (!text) {
      if (!project) await requireProject(this.cwd);
      text = await selectedStack(project!, backend.url, this.env);
      if (!text) {
        throw new UserError(
          'no stack is selected',
          'Run `stackyard stack select <name>` or `stackyard stack init <name>`, or pass --stack <name>.',
        );
      }
    }
    return { backend, project, ref: await this.parseStack(text) };
  }

  /** Parses a stack name against the backend's default organization and the current project. */
  async parseStack(text: string): Promise<StackRef> {
    const backend = await this.backend();
    const project = await this.project();
    const needsOrg = !text.includes('/');
    const org = needsOrg ? await backend.defaultOrg() : undefined;
    if (text.split('/').length < 3 && !project) {
      throw new UserError(
        `stack '${text}' needs a project: no Pulumi.yaml was found in ${this.cwd} or any parent folder`,
        'Run inside the project folder (or pass -C <dir>), or give the full name org/project/stack.',
      );
    }
    return parseStackRef(text, { org, project: project?.name });
  }

  /** How `pulumi` shows a stack name: just the stack within the current project and default org, else in full. */
  async displayName(ref: StackRef): Promise<string> {
    const project = await this.project();
    if (project?.name === ref.project && ref.org === (await (await this.backend()).defaultOrg())) return ref.stack;
    return formatStackRef(ref);
  }

  /** `--yes`, or `PULUMI_SKIP_CONFIRMATIONS` / `STACKYARD_SKIP_CONFIRMATIONS` set. */
  skipConfirmations(yes: unknown): boolean {
    return yes === true || truthy(this.env.STACKYARD_SKIP_CONFIRMATIONS) || truthy(this.env.PULUMI_SKIP_CONFIRMATIONS);
  }

  /**
   * Asks before something destructive. Without a terminal it refuses unless `--yes` was given; with one, the user
   * must type `expected` (or `yes` when none is given).
   */
  async confirm(yes: unknown, action: string, prompt: string, expected?: string): Promise<void> {
    if (this.skipConfirmations(yes)) return;
    if (!this.interactive) {
      throw new UserError('--yes must be passed in to proceed when running in non-interactive mode', `Re-run with --yes to ${action}.`);
    }
    const rl = (await import('node:readline/promises')).createInterface({ input: process.stdin, output: process.stderr });
    try {
      const question = expected ? `${prompt}\nPlease confirm that this is what you'd like to do by typing \`${expected}\`: ` : `${prompt} (yes/no) `;
      const answer = (await rl.question(question)).trim();
      const ok = expected ? answer === expected : answer === 'yes' || answer === 'y';
      if (!ok) throw new UserError('confirmation declined, not proceeding');
    } finally {
      rl.close();
    }
  }

  /** Prompts for a value on the terminal (echo off when `secret`). */
  async promptValue(label: string, secret: boolean): Promise<string> {
    if (!this.interactive) throw new UserError(`${label} must be specified in non-interactive mode`);
    const rl = (await import('node:readline/promises')).createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    if (secret) {
      // Replaces readline's echo of each typed character with nothing.
      (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = () => {};
      process.stderr.write(`${label}: `);
    }
    try {
      const value = await rl.question(secret ? '' : `${label}: `);
      if (secret) process.stderr.write('\n');
      return value;
    } finally {
      rl.close();
    }
  }

  out(text: string): void {
    process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** Progress and notes for people, on stderr, so stdout stays machine-readable. */
  note(text: string): void {
    process.stderr.write(`${text}\n`);
  }

  warn(text: string): void {
    process.stderr.write(`warning: ${text}\n`);
  }

  /** JSON the way `pulumi` prints it: two-space indentation, a final newline. */
  json(value: unknown): void {
    process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  async close(): Promise<void> {
    if (this.backendPromise) await (await this.backendPromise.catch(() => undefined))?.close();
  }
}
