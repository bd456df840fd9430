/**
 * The console's policy pages: an advisory pack run by an `up` through `stackyard serve`, then enabled for
 * `default-policy-group`; the update's page lists its violations and the pack's summary, and the
 * organization's Policies page shows the pack, the group and the stack violating it. Chromium, as console.test.ts
 * (console-harness.ts).
 */
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../cli/cli-harness.js';
import { publishablePackDir, publishableTarball } from '../policy/pack-tarball.js';
import { programRequest } from '../api/wire-fixtures.js';
import { ConsoleWorld, historyRows, shot } from './console-harness.js';

const STACK = 'acme/shop/dev';
const PACKS = '/api/orgs/acme/policypacks';
/** The publishable pack's policies as `policy publish` describes them. */
const POLICIES = [
  {
    name: 'no-forbidden-names',
    displayName: '',
    description: 'Resource names must not start with the configured prefix.',
    enforcementLevel: 'advisory',
    message: '',
    configSchema: { type: 'object', properties: { prefix: { type: 'string', default: 'forbidden' } } },
  },
  { name: 'at-most-ten-resources', displayName: '', description: 'A stack holds at most ten resources.', enforcementLevel: 'advisory', message: '' },
];
const CONFIG = { 'no-forbidden-names': { prefix: 'web-' } };

describe('the console on policy results', () => {
  let world: ConsoleWorld;
  let page: Page;

  /** `policy publish`'s three calls: create, the upload where the service said, complete. */
  async function publish(): Promise<void> {
    const created = await world.api('POST', PACKS, { name: 'publishable', displayName: 'publishable', versionTag: '0.0.1', policies: POLICIES, runtime: 'nodejs' });
    const upload = await fetch(created.json.uploadURI, { method: 'PUT', headers: created.json.requiredHeaders, body: new Uint8Array(await publishableTarball()) });
    const complete = await world.api('POST', `${PACKS}/publishable/versions/0.0.1/complete`);
    if (created.status !== 200 || upload.status !== 200 || complete.status >= 300) throw new Error(`publish failed: ${JSON.stringify(complete.json)}`);
  }

  beforeAll(async () => {
    world = await ConsoleWorld.start();
    await publish();
    // The same pack run from its folder (advisory, no group enables it yet): the up reports its violations.
    const pack = publishablePackDir();
    symlinkSync(join(REPO, 'node_modules'), join(pack, 'node_modules'), 'dir');
    const packConfig = join(world.service.sandbox.root, 'pack-config.json');
    writeFileSync(packConfig, JSON.stringify(CONFIG));
    const project = await world.service.project('shop', 'test/console/fixtures/site', STACK);
    await project.cli('config', 'set', 'count', '1');
    const up = await project.cli('up', '--yes', '--skip-preview', '--policy-pack', pack, '--policy-pack-config', packConfig);
    if (up.status !== 0 || !up.stdout.includes('publishable@v0.0.1')) throw new Error(`up failed: ${up.stdout}${up.stderr}`);
    // A refresh runs no pack: its page has no Policies section, and the stack's results stay those of the up.
    const refresh = await project.cli('refresh', '--yes', '--skip-preview');
    if (refresh.status !== 0) throw new Error(`refresh failed: ${refresh.stderr}`);
    const enabled = await world.api('PATCH', '/api/orgs/acme/policygroups/default-policy-group', { addPolicyPack: { name: 'publishable', versionTag: '0.0.1', config: CONFIG } });
    if (enabled.status !== 200) throw new Error(`enable failed: ${JSON.stringify(enabled.json)}`);
    page = await world.browser();
    await world.signIn(page, world.tokens.alice, `/${STACK}/updates/1`);
  }, 120_000);

  afterAll(async () => {
    await world?.stop();
  });

  it("lists an update's policy violations and each pack's summary; an update where no pack ran shows none", async () => {
    const rows = page.getByTestId('policy-violations').locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    const cells = await rows.first().locator('th, td').allInnerTexts();
    expect(cells.map((c) => c.trim())).toEqual(['publishable@0.0.1', 'no-forbidden-names', 'advisory', 'web-r0 testprov:index:Thing', 'Resource names must not start with the configured prefix.\nweb-r0 starts with web-']);
    const summary = await page.getByTestId('policy-packs').innerText();
    expect(summary).toMatch(/publishable@0\.0\.1\s+1 advisory violation\s/);
    expect(summary).toContain('passed: at-most-ten-resources');
    expect(summary).toContain('failed: no-forbidden-names');
    await shot(page, 'update-policies');

    await page.goto(`${world.url}/${STACK}/updates/2`);
    await expect.poll(() => page.getByTestId('event-log').locator('li').count()).toBeGreaterThan(0);
    expect(await page.getByRole('heading', { name: 'Policies' }).count()).toBe(0);
  });

  it("shows the organization's packs, groups with their stacks and config, and the stack violating an advisory policy", async () => {
    await page.goto(`${world.url}/acme`);
    await page.getByRole('link', { name: 'Policies' }).click();
    await page.waitForURL(`${world.url}/acme/settings/policies`);

    const packRow = page.getByTestId('policy-packs').locator('tbody tr');
    await expect.poll(() => packRow.count()).toBe(1);
    expect((await packRow.first().locator('th, td').allInnerTexts()).map((c) => c.trim())).toEqual(['publishable', '0.0.1', 'default-policy-group (0.0.1)']);
    const group = page.getByTestId('policy-groups').locator(':scope > li', { hasText: 'default-policy-group' });
    expect(await group.innerText()).toMatch(/Stacks:\s+shop\/dev/);
    await group.getByText('Config').click();
    expect(JSON.parse(await group.locator('pre').innerText())).toEqual({ 'no-forbidden-names': { prefix: 'web-' } });
    const violating = page.getByTestId('violating-stacks').locator('tbody tr');
    expect(await violating.count()).toBe(1);
    expect((await violating.first().locator('th, td').allInnerTexts()).map((c) => c.trim())).toEqual([
      'shop/dev',
      expect.stringMatching(/^1 /),
      '1',
      'publishable@0.0.1: no-forbidden-names',
    ]);
    await shot(page, 'policies');

    await violating.first().getByRole('link', { name: '1' }).click();
    await page.waitForURL(`${world.url}/${STACK}/updates/1`);
  });

  it("says on the update's page and in the history that the service's policy check failed an update, and why", async () => {
    // A client that skips the now-required pack: create, start, complete as succeeded with no analysis reported.
    const at = `/api/stacks/${STACK}`;
    const created = await world.api('POST', `${at}/update`, programRequest({ org: 'acme', project: 'shop', stack: 'dev' }, false));
    const started = await world.api('POST', `${at}/update/${created.json.updateID}`, { tags: { 'pulumi:project': 'shop' } });
    expect(started.status, JSON.stringify(started.json)).toBe(200);
    const completed = await fetch(`${world.url}${at}/update/${created.json.updateID}/complete`, {
      method: 'POST',
      headers: { authorization: `update-token ${started.json.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'succeeded' }),
    });
    expect(completed.status).toBe(409);
    const why = "by the service's policy check: required policy pack publishable@0.0.1 did not report its analysis";

    await page.goto(`${world.url}/${STACK}/updates/${started.json.version}`);
    await expect.poll(() => page.getByTestId('update-result').innerText()).toBe(`Failed ${why}`);
    await page.goto(`${world.url}/${STACK}`);
    await expect.poll(() => historyRows(page).first().innerText()).toContain(`Failed ${why}`);
    expect(await historyRows(page).nth(1).getByTestId('policy-check-failure').count()).toBe(0);
  });
});
