import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { serviceFixture, type ServiceFixture } from '../../test/support/service-fixture.js';
import type { LambdaFunction } from '../composition.js';
import { identityFunction } from './identity.js';
import { secretsFunction } from './secrets.js';
import { stacksFunction } from './stacks.js';
import { updatesFunction } from './updates.js';

const HTTP_DIR = fileURLToPath(new URL('../http/', import.meta.url));

/**
 * The service methods the routes of `group` in a route module call as `services.<name>.<method>`, as `<name>.<method>`.
 * Each route object runs from its `method:` to the next one and names its `group:`; code before the first route (the
 * module's helpers) counts for every group.
 */
function servicesUsedBy(file: string, group: string): string[] {
  const [preamble = '', ...routes] = readFileSync(file, 'utf8').split(/\bmethod: '/);
  const ofGroup = routes.filter((route) => (/\bgroup: '(\w+)'/.exec(route)?.[1] ?? group) === group);
  return [preamble, ...ofGroup].flatMap((text) => [...text.matchAll(/\bservices\.([A-Za-z]+)\.([A-Za-z]+)/g)].map((match) => `${match[1]}.${match[2]}`));
}

/** The service methods the routes of a group (every module its group file takes routes from) and authentication call. */
function servicesRoutesUse(group: string): string[] {
  const groupFile = `${HTTP_DIR}routes/group-${group}.ts`;
  const routeModules = [...readFileSync(groupFile, 'utf8').matchAll(/from '\.\/([\w-]+)\.js'/g)].map((m) => `${HTTP_DIR}routes/${m[1]}.ts`);
  return [...new Set([...routeModules, `${HTTP_DIR}auth.ts`].flatMap((file) => servicesUsedBy(file, group)))].sort();
}

const FUNCTIONS: Record<string, LambdaFunction> = {
  identity: identityFunction,
  secrets: secretsFunction,
  stacks: stacksFunction,
  updates: updatesFunction,
};

describe('each API function builds every service method its routes call', () => {
  let fx: ServiceFixture;
  afterEach(async () => {
    await fx.close();
  });

  it.each(Object.keys(FUNCTIONS))('%s', async (group) => {
    fx = await serviceFixture();
    const used = servicesRoutesUse(group);

    const built: Record<string, object | undefined> = FUNCTIONS[group]!.services(fx.deps, (service) => service);

    // A function may build a service with only some of its methods (stacks reads an update's status only).
    const missing = used.filter((call) => {
      const [service, method] = call.split('.') as [string, string];
      return typeof (built[service] as Record<string, unknown> | undefined)?.[method] !== 'function';
    });
    expect(used.some((call) => call.startsWith('identity.'))).toBe(true);
    expect(missing).toEqual([]);
  });
});
