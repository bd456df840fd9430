import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import { ok, type PulumiWire } from '../api/pulumi-wire.js';
import { engineEvents, programRequest, stackPath, type Ref } from '../api/wire-fixtures.js';
import { spawnReadyChild, stopChild, tsxNodeArgs } from '../support/processes.js';
import type { Received } from './receiver.js';

export type { Received };

const RECEIVER = fileURLToPath(new URL('./receiver.ts', import.meta.url));

/** The receiver process (receiver.ts): a real HTTP server the hooks post to. */
export interface Receiver {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  received(): Promise<Received[]>;
  /** What `POST /gate/<label>` answers from now on. */
  setGate(label: string, answer: unknown): Promise<void>;
  stop(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const { child, port }: { child: ChildProcess; port: number } = await spawnReadyChild('hook receiver', process.execPath, [...tsxNodeArgs(), RECEIVER]);
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    received: async () => (await (await fetch(`${url}/__received`)).json()) as Received[],
    async setGate(label, answer) {
      const response = await fetch(`${url}/__gate/${label}`, { method: 'POST', body: JSON.stringify(answer) });
      if (response.status !== 204) throw new Error(`the receiver did not take the gate answer (${response.status})`);
    },
    stop: () => stopChild(child),
  };
}

/** `serve` settings that make hook retries take milliseconds, plus the SDK settings a Lambda stand-in needs. */
export function fastHookEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    STACKYARD_HOOKS_DISPATCH_MS: '50',
    STACKYARD_HOOKS_BASE_DELAY_MS: '100',
    STACKYARD_HOOKS_MAX_ATTEMPTS: '4',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'stand-in',
    AWS_SECRET_ACCESS_KEY: 'stand-in',
    ...extra,
  };
}

/** Polls `check` every 50 ms until it returns a value. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A user with a token, created by the administrator, with `role` in each of `orgs`. */
export async function createUser(wire: PulumiWire, adminToken: string, login: string, orgs: string[], role = 'member'): Promise<string> {
  const admin = { token: adminToken };
  ok(await wire.call('POST', '/api/users', { auth: admin, body: { login } }), 201);
  for (const org of orgs) ok(await wire.call('POST', `/api/orgs/${org}/members`, { auth: admin, body: { login, role } }), 201);
  return ok(await wire.call('POST', '/api/user/tokens', { auth: admin, body: { description: login, login } }), 201).tokenValue as string;
}

/**
 * A whole update as the CLI runs it (create, start, events, complete), with the stack config the request carries
 * (secret values as the service's ciphertexts, as the CLI sends them).
 */
export async function runConfiguredUpdate(
  wire: PulumiWire,
  token: string,
  ref: Ref,
  options: { dryRun: boolean; config?: Record<string, unknown> },
): Promise<{ updateId: string }> {
  const kind = options.dryRun ? 'preview' : 'update';
  const request = { ...programRequest(ref, options.dryRun), ...(options.config ? { config: options.config } : {}) };
  const created = ok(await wire.call('POST', `${stackPath(ref)}/${kind}`, { auth: { token }, body: request }));
  const started = ok(await wire.call('POST', `${stackPath(ref)}/update/${created.updateID}`, { auth: { token }, body: { tags: {} } }));
  const lease = { updateToken: started.token as string };
  ok(await wire.call('POST', `${stackPath(ref)}/update/${created.updateID}/events/batch`, { auth: lease, body: { events: engineEvents({ same: 1 }, options.dryRun) } }));
  ok(await wire.call('POST', `${stackPath(ref)}/update/${created.updateID}/complete`, { auth: lease, body: { status: 'succeeded' } }));
  return { updateId: created.updateID };
}

/** Every file under `dir`, as text. */
export function filesUnder(dir: string): { path: string; text: string }[] {
  const files: { path: string; text: string }[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...filesUnder(path));
    else files.push({ path, text: readFileSync(path, 'utf8') });
  }
  return files;
}
