/**
 * What the console's browser tests share: Debian's Chromium driven by playwright-core with a fresh profile per
 * browser, and `stackyard serve` (the bundled CLI, `npm run build` first) with the organizations, users and tokens
 * the tests sign in with. Screenshots go to test-artifacts/console/ (STACKYARD_ARTIFACTS overrides).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createLocalStorage } from '../../shared/adapters/local/index.js';
import type { Storage } from '../../shared/ports/index.js';
import { REPO, removeSandboxes } from '../cli/cli-harness.js';
import { E2eService } from '../e2e/e2e-harness.js';

const CHROMIUM = '/usr/bin/chromium';
/** The launch flags the project runs Chromium with (no network of its own, no first-run work). */
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const ARTIFACTS = process.env.STACKYARD_ARTIFACTS ?? join(REPO, 'test-artifacts', 'console');
/** A short lease, renewed often: a killed run's lease is gone within seconds. */
export const LEASE = { STACKYARD_LEASE_SECONDS: '4', STACKYARD_LEASE_RENEW_SECONDS: '1' };

/** A call of the API with a token (the administrator's unless another is given). */
export interface Api {
  (method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; json: any }>;
}

/**
 * `stackyard serve` with organizations `acme` and `globex`; alice a member and victor a viewer of acme, mallory an
 * administrator of globex only; and a browser per call of `browser`, each with a profile of its own.
 */
export class ConsoleWorld {
  private readonly profiles: string[] = [];
  private readonly contexts: BrowserContext[] = [];

  private constructor(
    readonly service: E2eService,
    readonly url: string,
    readonly api: Api,
    readonly tokens: { alice: string; victor: string; mallory: string },
  ) {}

  static async start(serveEnv: Record<string, string> = {}): Promise<ConsoleWorld> {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does).`);
    mkdirSync(ARTIFACTS, { recursive: true });
    const service = await E2eService.start({ storage: 'local', env: serveEnv });
    const url = service.serve!.url;
    const admin = service.serve!.adminToken;
    const api: Api = async (method, path, body, token = admin) => {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `token ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, json: text ? JSON.parse(text) : undefined };
    };
    for (const [method, path, body] of [
      ['POST', '/api/orgs', { name: 'acme' }],
      ['POST', '/api/orgs', { name: 'globex' }],
      ['POST', '/api/users', { login: 'alice' }],
      ['POST', '/api/orgs/acme/members', { login: 'alice', role: 'member' }],
      ['POST', '/api/users', { login: 'victor' }],
      ['POST', '/api/orgs/acme/members', { login: 'victor', role: 'viewer' }],
      ['POST', '/api/users', { login: 'mallory' }],
      ['POST', '/api/orgs/globex/members', { login: 'mallory', role: 'admin' }],
    ] as const) {
      const response = await api(method, path, body);
      if (response.status >= 300) throw new Error(`${method} ${path}: ${JSON.stringify(response.json)}`);
    }
    const token = async (login: string) => (await api('POST', '/api/user/tokens', { login, description: 'console test' })).json.tokenValue as string;
    return new ConsoleWorld(service, url, api, { alice: await token('alice'), victor: await token('victor'), mallory: await token('mallory') });
  }

  /** A browser with a fresh profile of its own (a new user data dir each time). */
  async browser(viewport = { width: 1280, height: 900 }, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const profile = mkdtempSync(join(tmpdir(), 'stackyard-chromium-'));
    this.profiles.push(profile);
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_FLAGS,
      viewport,
      colorScheme,
    });
    this.contexts.push(context);
    return context.pages()[0] ?? (await context.newPage());
  }

  /** Pastes `token` on the sign-in page that `path` sends a signed-out browser to, and lands back on `path`. */
  async signIn(page: Page, token: string, path: string): Promise<void> {
    await page.goto(`${this.url}${path}`);
    await page.waitForURL(/\/signin\?next=/);
    await page.getByLabel('Access token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${this.url}${path}`);
  }

  /**
   * Writes what only a runner would record (a drift remediation, a pull request result post) straight into serve's
   * local storage, for the stack `acme/<project>/dev`.
   */
  async inStorage(project: string, act: (storage: Storage, stackId: string) => Promise<unknown>): Promise<void> {
    const storage = await createLocalStorage({ dataDir: this.service.serve!.dataDir });
    try {
      await act(storage, (await storage.stacks.get({ org: 'acme', project, stack: 'dev' })).id);
    } finally {
      await storage.close();
    }
  }

  async stop(): Promise<void> {
    for (const context of this.contexts) await context.close().catch(() => undefined);
    for (const profile of this.profiles) rmSync(profile, { recursive: true, force: true });
    await this.service.stop();
    removeSandboxes();
  }
}

/** A full-page screenshot into the artifacts folder (docs/console.md shows some of them). */
export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** The rows of a stack page's history table, newest first. */
export const historyRows = (page: Page) => page.getByTestId('history').locator('tbody tr');
