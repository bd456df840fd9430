import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLocalStorage } from '../../shared/adapters/local/index.js';
import { InvalidInputError } from '../../shared/core/errors.js';
import type { Storage } from '../../shared/ports/index.js';
import { serveHookSettings, startHookDispatchLoop } from './hook-dispatch.js';

describe('serveHookSettings', () => {
  it('runs the dispatcher every second with the core retry policy and no private targets by default', () => {
    const settings = serveHookSettings({});

    expect(settings.dispatchEveryMs).toBe(1000);
    expect(settings.hooks).toMatchObject({ allowPrivate: false });
    expect(settings.hooks).not.toHaveProperty('maxAttempts');
    expect(settings.hooks).not.toHaveProperty('allowedLambdaArns');
  });

  it('reads the interval, the retry policy, private targets and the Lambda allow-list from the environment', () => {
    const settings = serveHookSettings({
      STACKYARD_HOOKS_DISPATCH_MS: '50',
      STACKYARD_HOOKS_MAX_ATTEMPTS: '3',
      STACKYARD_HOOKS_BASE_DELAY_MS: '100',
      STACKYARD_HOOKS_MAX_DELAY_MS: '400',
      STACKYARD_HOOKS_ALLOW_PRIVATE: 'true',
      STACKYARD_HOOK_FUNCTION_ARNS: 'arn:aws:lambda:eu-west-1:123456789012:function:ci-hook',
    });

    expect(settings.dispatchEveryMs).toBe(50);
    expect(settings.hooks).toMatchObject({
      maxAttempts: 3,
      baseDelayMs: 100,
      maxDelayMs: 400,
      allowPrivate: true,
      allowedLambdaArns: ['arn:aws:lambda:eu-west-1:123456789012:function:ci-hook'],
    });
  });

  it.each([
    ['STACKYARD_HOOKS_DISPATCH_MS', '5'],
    ['STACKYARD_HOOKS_DISPATCH_MS', 'soon'],
    ['STACKYARD_HOOKS_MAX_ATTEMPTS', '0'],
    ['STACKYARD_HOOKS_BASE_DELAY_MS', '-1'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => serveHookSettings({ [name]: value })).toThrow(InvalidInputError);
    expect(() => serveHookSettings({ [name]: value })).toThrow(new RegExp(`^${name} must be a whole number from`));
  });
});

describe('startHookDispatchLoop', () => {
  let dataDir: string | undefined;
  let storage: Storage | undefined;

  afterEach(async () => {
    await storage?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs repeatedly until stopped, and not once after', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'stackyard-dispatch-loop-'));
    storage = await createLocalStorage({ dataDir });
    let runs = 0;
    const hooks = Object.assign(Object.create(storage.hooks) as Storage['hooks'], {
      claimEvents: (now: number, claimedUntil: number, limit: number) => {
        runs += 1;
        return storage!.hooks.claimEvents(now, claimedUntil, limit);
      },
    });
    const errors: unknown[] = [];

    const loop = startHookDispatchLoop({ hooks, keys: storage.keys }, { dispatchEveryMs: 10, hooks: {} }, (error) => errors.push(error));
    // Waits for three runs (up to 10 s), not for a fixed 200 ms that a loaded machine may not fill with three.
    const deadline = Date.now() + 10_000;
    while (runs < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    await loop.stop();
    const atStop = runs;
    await new Promise((resolve) => setTimeout(resolve, 100));

    expect(atStop).toBeGreaterThanOrEqual(3);
    expect(runs).toBe(atStop);
    expect(errors).toEqual([]);
  });
});
