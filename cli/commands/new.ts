/**
 * `new [template|url]`: a project and its first stack from a template folder or a template archive URL, as Pulumi's
 * `new` makes them (pkg/cmd/pulumi/project/newcmd/new.go, its sequential prompts): project name, description, stack
 * name and the template's config values, each with a default (`-y` takes them all). It installs nothing: the next
 * steps name `stackyard install`, which runs the project's package manager.
 */
import { promises as fs } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { parse, stringify } from 'yaml';
import { formatStackRef, type StackRef } from '../../shared/core/names.js';
import { isNotFound, type Backend } from '../backend/backend.js';
import { UserError } from '../output/errors.js';
import { stackConfigPath, type Project } from '../project/project.js';
import { StackConfigFile } from '../project/stack-config.js';
import { selectStack } from '../project/workspace.js';
import { askTemplateConfig, commandLineConfig, defaultProjectName, promptForValue, projectNameProblem, type NewConfigValue, type ReadLine } from '../templates/new-prompts.js';
import { checkNoOverwrites, copyTemplate, loadTemplate, type ProjectTemplate } from '../templates/project-template.js';
import { openTemplate } from '../templates/template-source.js';
import type { CommandContext } from './context.js';
import { projectTags } from './stack.js';
import type { CommandHandler } from './types.js';

/** Folders a version-control tool keeps, which do not make a folder "not empty" (Pulumi's list). */
const INVISIBLE = new Set(['.git', '.hg', '.bzr']);

async function requireEmpty(dir: string): Promise<void> {
  const entries = (await fs.readdir(dir)).filter((name) => !INVISIBLE.has(name));
  if (entries.length > 0) {
    throw new UserError(`${dir} is not empty; use --force to continue and overwrite existing files, or use --dir to specify an empty directory.`);
  }
}

/** A template made of one `Pulumi.yaml` holding the name alone: what Pulumi writes when no template is named. */
async function minimalTemplate(): Promise<{ template: ProjectTemplate; cleanup(): Promise<void> }> {
  const dir = await fs.mkdtemp(join((await import('node:os')).tmpdir(), 'stackyard-new-'));
  await fs.writeFile(join(dir, 'Pulumi.yaml'), 'name: ${PROJECT}');
  const template = { ...(await loadTemplate(dir)), name: '' };
  return { template, cleanup: () => fs.rm(dir, { recursive: true, force: true }) };
}

/**
 * Writes the new Pulumi.yaml as Pulumi saves a project: the chosen name and description, no `template:` section,
 * `name`, `runtime` and `description` first (Pulumi marshals its project struct, which drops comments too).
 */
async function finishProjectFile(dir: string, name: string, description: string): Promise<void> {
  const file = join(dir, 'Pulumi.yaml');
  const { name: _name, runtime, description: templateDescription, template: _template, ...rest } = (parse(await fs.readFile(file, 'utf8')) ?? {}) as Record<string, unknown>;
  const project = { name, ...(runtime === undefined ? {} : { runtime }), ...(description || templateDescription ? { description: description || templateDescription } : {}), ...rest };
  await fs.writeFile(file, stringify(project));
  await fs.rm(join(dir, 'Pulumi.yaml.append'), { force: true });
}

/** A stack that exists already is used as it is (Pulumi's `new --stack org/project/stack` on a stack made elsewhere). */
async function stackExists(backend: Backend, ref: StackRef): Promise<boolean> {
  return backend.getStack(ref).then(
    () => true,
    (error: unknown) => {
      if (isNotFound(error)) return false;
      throw error;
    },
  );
}

/** Creates the stack (asking its name unless `--stack` gave it), selects it, and says so. */
async function createStack(ctx: CommandContext, backend: Backend, project: Project, read: ReadLine, yes: boolean, given: string | undefined): Promise<StackRef> {
  if (given?.split('/').length === 3) {
    const ref = await ctx.parseStack(given);
    if (await stackExists(backend, ref)) {
      await selectStack(project, backend.url, formatStackRef(ref), ctx.env);
      return ref;
    }
  }
  let name = given ?? (await promptForValue(read, yes, 'Stack name', 'dev', false));
  for (;;) {
    try {
      const ref = await ctx.parseStack(name);
      await backend.createStack(ref, projectTags(project));
      await selectStack(project, backend.url, formatStackRef(ref), ctx.env);
      ctx.out(`Created stack '${await ctx.displayName(ref)}'\n\n`);
      return ref;
    } catch (error) {
      if (yes || given !== undefined) throw error;
      ctx.out(`Sorry, could not create stack '${name}': ${(error as Error).message}`);
      name = await promptForValue(read, yes, 'Stack name', 'dev', false);
    }
  }
}

/** Encrypts the secrets with the stack's key (one batch) and writes every value to the stack's config file. */
async function saveConfig(backend: Backend, project: Project, ref: StackRef, values: NewConfigValue[]): Promise<boolean> {
  if (values.length === 0) return false;
  const secrets = values.filter((v) => v.secret !== undefined);
  const ciphertexts = secrets.length > 0 ? await backend.encrypt(ref, secrets.map((v) => v.secret!)) : [];
  secrets.forEach((v, i) => (v.value = { secure: ciphertexts[i]! }));
  const file = await StackConfigFile.load(stackConfigPath(project, ref.stack));
  for (const { key, value } of values) file.set(key, value);
  await file.save();
  return true;
}

/** Pulumi's closing lines, with `stackyard install` where Pulumi would have installed the dependencies itself. */
function nextSteps(from: string, to: string, generateOnly: boolean, hasRuntime: boolean): string {
  const commands: string[] = [];
  if (from !== to) {
    const cd = relative(from, to) || to;
    commands.push(`cd ${/\s/.test(cd) ? `"${cd}"` : cd}`);
  }
  if (generateOnly || hasRuntime) commands.push('stackyard install');
  if (generateOnly) commands.push('stackyard stack init');
  if (commands.length === 0) return 'To perform an initial deployment, run `stackyard up`\n\n';
  if (commands.length === 1) return `To perform an initial deployment, run '${commands[0]}', then, run \`stackyard up\`\n\n`;
  return `To perform an initial deployment, run the following commands:\n\n${commands.map((c, i) => `   ${i + 1}. ${c}`).join('\n')}\n\nThen, run \`stackyard up\`\n\n`;
}

export const newProject: CommandHandler = async (ctx, args, opts) => {
  const yes = ctx.skipConfirmations(opts.yes);
  if (!ctx.interactive && !yes) throw new UserError('non-interactive mode requires --yes flag', 'Pass --yes to take every default, with --name, --stack and --config for the values to set.');
  const generateOnly = opts.generateOnly === true;
  const givenName = opts.name as string | undefined;
  const nameProblem = givenName === undefined ? undefined : projectNameProblem(givenName);
  if (nameProblem) throw new UserError(`'${givenName}' is not a valid project name: ${nameProblem}`);
  const originalCwd = ctx.cwd;
  if (typeof opts.dir === 'string') {
    await fs.mkdir(opts.dir, { recursive: true });
    process.chdir(opts.dir);
  }
  const cwd = ctx.cwd;
  if (opts.force !== true) await requireEmpty(cwd);
  const stackText = opts.stack as string | undefined;
  const stackParts = stackText?.split('/');
  if (givenName && stackParts?.length === 3 && stackParts[1] !== givenName) {
    throw new UserError(`project name (--name ${givenName}) and stack reference project name (--stack ${stackText}) must be the same`);
  }
  const backend = generateOnly ? undefined : await ctx.backend();
  if (backend && givenName && (await backend.listStacks({ project: givenName })).length > 0 && !ctx.interactive) {
    throw new UserError(`a project with this name already exists: ${givenName}`, 'Pass another --name, or create a stack in the existing project with `stackyard stack init`.');
  }
  const read: ReadLine = (label, secret) => ctx.promptValue(label, secret);
  const source = args[0] === undefined ? undefined : await openTemplate(args[0], originalCwd, opts.offline === true);
  const { template, cleanup } = source ? { template: await loadTemplate(source.dir), cleanup: source.cleanup } : await minimalTemplate();
  try {
    if (opts.force !== true) await checkNoOverwrites(template, cwd, givenName ?? '${PROJECT}');
    let name = givenName ?? (stackParts?.length === 3 ? stackParts[1] : undefined);
    let description = (opts.description as string | undefined) ?? '';
    const needsPrompt = name === undefined || description === '' || (!generateOnly && stackText === undefined);
    if (!yes && needsPrompt) {
      ctx.out('This command will walk you through creating a new project.\n\nEnter a value or leave blank to accept the (default), and press <ENTER>.\nPress ^C at any time to quit.\n\n');
    }
    const defaultName = template.projectName !== '${PROJECT}' && template.projectName !== '' ? template.projectName : defaultProjectName(basename(cwd));
    name ??= await promptForValue(read, yes, 'Project name', defaultName, false, projectNameProblem);
    if (description === '') {
      const defaultDescription = template.projectDescription !== '${DESCRIPTION}' ? template.projectDescription : template.description;
      description = await promptForValue(read, yes, 'Project description', defaultDescription, false, (d) => (d.length > 256 ? 'a project description must be 256 characters or less' : undefined));
    }
    await copyTemplate(template, cwd, opts.force === true, name, description);
    ctx.out(`Created project '${name}'\n\n`);
    await finishProjectFile(cwd, name, description);
    const project = await ctx.requireProject();
    if (backend) {
      const ref = await createStack(ctx, backend, project, read, yes, stackText);
      const flags = commandLineConfig((opts.config as string[] | undefined) ?? [], name, opts.configPath === true);
      const values = await askTemplateConfig(read, yes, name, template.config, flags);
      if (await saveConfig(backend, project, ref, values)) ctx.out('Saved config\n\n');
    }
    ctx.out('Your new project is ready to go!\n\n');
    ctx.out(nextSteps(originalCwd, cwd, generateOnly, project.runtime !== undefined));
    if (template.quickstart) ctx.out(template.quickstart);
  } finally {
    await cleanup();
  }
};
