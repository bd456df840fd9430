/** `console`: opens the stack's page of the web console, signed in through a one-time login code. */
import { spawn } from 'node:child_process';
import { isNotFound } from '../backend/backend.js';
import { HttpBackend } from '../backend/http-backend.js';
import { UserError } from '../output/errors.js';
import { stackConsolePath } from './console-path.js';
import type { CommandHandler } from './types.js';


/**
 * The sign-in URL. The code rides in the fragment, which browsers never send to a server, so it reaches no access
 * log; the page exchanges it (once, within 60 s) for a session cookie and lands on the stack.
 */
export function consoleLoginUrl(serviceUrl: string, code: string): string {
  return `${serviceUrl.replace(/\/+$/, '')}/signin#code=${encodeURIComponent(code)}`;
}

/** What Go's browser.OpenURL runs, which `pulumi console` uses. */
function openCommand(url: string): [string, string[]] {
  if (process.platform === 'darwin') return ['open', [url]];
  if (process.platform === 'win32') return ['rundll32', ['url.dll,FileProtocolHandler', url]];
  return ['xdg-open', [url]];
}

function openBrowser(url: string): Promise<boolean> {
  const [command, args] = openCommand(url);
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}

export const consoleCommand: CommandHandler = async (ctx, _args, opts) => {
  const backend = await ctx.backend();
  if (!(backend instanceof HttpBackend)) {
    // Pulumi's own answer for backends without a console, and its exit code (0).
    ctx.out(
      'This command is not available for your backend. The web console is served by a Stackyard service: run ' +
        '`stackyard serve` (or deploy one) and `stackyard login <url>`.',
    );
    return;
  }
  const { ref } = await ctx.resolveStack(opts.stack as string | undefined);
  await backend.getStack(ref).catch(async (error: unknown) => {
    if (!isNotFound(error)) throw error;
    throw new UserError(`stack '${await ctx.displayName(ref)}' does not exist`, 'Run `stackyard stack init` to create it.');
  });
  const { code } = await backend.consoleLoginCode(stackConsolePath(ref));
  const url = consoleLoginUrl(backend.url, code);
  if (opts.printUrl) {
    ctx.out(url);
    return;
  }
  if (!(await openBrowser(url))) {
    ctx.out(`We couldn't launch your web browser for some reason. Please visit (within 60 seconds):\n${url}`);
  }
};
