import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { serviceFixture, type ServiceFixture } from '../../shared/core/service/test-fixture.js';
import type { LambdaFunction } from '../composition.js';
import { identityFunction } from './identity.js';
import { secretsFunction } from './secrets.js';
import { stacksFunction } from './stacks.js';
import { updatesFunction } from './updates.js';

const HTTP_DIR = fileURLToPath(new URL('../http/', import.meta.url));

/** The services a source file reaches as `services.<name>`. */
function servicesUsedBy(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/\bservices\.([A-Za-z]+)/g)].map((match) => match[1]!);
}

/** The services the routes of a group (every module its group file takes routes from) and authentication use. */
function servicesRoutesUse(group: string): string[] {
  const groupFile = `${HTTP_DIR}routes/group-${group}.ts`;
  const routeModules = [...readFileSync(groupFile, 'utf8').matchAll(/from '\.\/([\w-]+)\.js'/g)].map((m) => `${HTTP_DIR}routes/${m[1]}.ts`);
  return [...new Set([...routeModules, `${HTTP_DIR}auth.ts`].flatMap(servicesUsedBy))].sort();
}

const FUNCTIONS: Record<string, LambdaFunction> = {
  identity: identityFunction,
  secrets: secretsFunction,
  stacks: stacksFunction,
  updates: updatesFunction,
};

describe('each API function builds every service its routes use', () => {
  let fx: ServiceFixture;
  afterEach(async () => {
    await fx.close();
  });

  it.each(Object.keys(FUNCTIONS))('%s', async (group) => {
    fx = await serviceFixture();
    const used = servicesRoutesUse(group);

    const built = Object.keys(FUNCTIONS[group]!.services(fx.deps, (service) => service));

    expect(used).toContain('identity');
    expect(used.filter((name) => !built.includes(name))).toEqual([]);
  });
});
