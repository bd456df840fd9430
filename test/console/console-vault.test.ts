/**
 * The console on a stack with a protected dynamic provider resource (its serialized provider is a long value in
 * its inputs and outputs) and with an update killed while it held the lease: Chromium against `stackyard serve`, as
 * console.test.ts (console-harness.ts).
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { E2eProject } from '../e2e/e2e-harness.js';
import { ConsoleWorld, historyRows, LEASE, shot } from './console-harness.js';

const STACK = 'acme/vault/dev';

/** The characters of an element's text, counted as the page counts them (by code point). */
const characters = (locator: Locator) => locator.evaluate((element) => [...(element.textContent ?? '')].length);

describe('the console on a dynamic provider resource and a killed update', () => {
  let world: ConsoleWorld;
  let project: E2eProject;

  /** The keeper's row in the resource tree, opened. */
  async function openKeeper(page: Page): Promise<Locator> {
    await world.signIn(page, world.tokens.alice, `/${STACK}/resources`);
    const summary = page.getByTestId('resource-tree').locator('summary', { has: page.locator('strong', { hasText: /^keeper$/ }) });
    await summary.click();
    return summary.locator('xpath=../..');
  }

  beforeAll(async () => {
    world = await ConsoleWorld.start();
    project = await world.service.project('vault', 'test/console/fixtures/vault', STACK, LEASE);
    const up = await project.cli('up', '--yes', '--skip-preview');
    if (up.status !== 0) throw new Error(`up failed: ${up.stderr}`);
  });

  afterAll(async () => {
    await world?.stop();
  });

  it("collapses a long value (the dynamic provider's __provider, in inputs and outputs) with a button to show all of it", async () => {
    const page = await world.browser();
    const keeper = await openKeeper(page);
    const provider = keeper.locator('.props div', { has: page.locator('dt', { hasText: /^__provider$/ }) });

    await expect.poll(() => provider.count()).toBe(2);
    const showAll = provider.getByRole('button', { name: /^Show all \([\d,]+ characters\)$/ });
    expect(await showAll.count()).toBe(2);
    const total = Number((await showAll.first().innerText()).replace(/\D/g, ''));
    expect(total).toBeGreaterThan(400);
    expect(await characters(provider.first().locator('code'))).toBe(201);
    await showAll.first().click();

    const expanded = provider.first().getByRole('button', { name: 'Show less' });
    expect(await expanded.getAttribute('aria-expanded')).toBe('true');
    expect(await characters(provider.first().locator('code'))).toBe(total);
    expect(await characters(provider.last().locator('code'))).toBe(201);
    const label = keeper.locator('.props div', { has: page.locator('dt', { hasText: /^label$/ }) });
    expect(await label.first().innerText()).toMatch(/^label\s+vault$/);
    await shot(page, 'long-value');
  });

  it('sets the protected badge apart from the type name, on screen and in the text', async () => {
    const page = await world.browser();
    const summary = (await openKeeper(page)).locator('summary');

    const type = (await summary.locator('.type').boundingBox())!;
    const badge = (await summary.locator('.badge', { hasText: 'protected' }).boundingBox())!;

    const sameLine = badge.y < type.y + type.height;
    expect(sameLine ? badge.x - (type.x + type.width) : Number.POSITIVE_INFINITY).toBeGreaterThanOrEqual(6);
    expect(await summary.innerText()).toMatch(/pulumi-nodejs:dynamic:Resource\s+protected/);
  });

  it('says an update killed while it held the lease was abandoned (lease expired), before and after it is recorded', async () => {
    const viewer = await world.browser();
    await world.signIn(viewer, world.tokens.victor, `/${STACK}`);
    await project.cli('config', 'set', 'hold', '60000');
    const run = project.spawn(['up', '--yes', '--skip-preview']);
    await expect.poll(() => viewer.getByTestId('lease-holder').innerText(), { timeout: 30_000 }).toMatch(/held by admin/);
    // A viewer may not cancel: the page does not offer it.
    expect(await viewer.getByRole('button', { name: 'Cancel update…' }).count()).toBe(0);

    await run.kill();
    // Its lease runs out: abandoned, though nothing has recorded it yet.
    const panel = viewer.getByTestId('lease-panel');
    await expect.poll(() => panel.innerText(), { timeout: 20_000 }).toMatch(/^No update is running\. Abandoned \(lease expired\) update by admin, started /);
    await shot(viewer, 'abandoned-unrecorded');
    const org = await viewer.context().newPage();
    await org.goto(`${world.url}/acme`);
    await expect.poll(() => org.getByTestId('stack-row-vault/dev').innerText()).toMatch(/Abandoned \(lease expired\) update by admin\s*$/);
    await org.close();
    await panel.getByRole('link', { name: 'update' }).click();
    await viewer.waitForURL(`${world.url}/${STACK}/updates/2`);
    await expect.poll(() => viewer.getByTestId('update-result').innerText()).toMatch(/^Abandoned \(lease expired\)\n.*next update, refresh or destroy records it/s);
    await expect.poll(() => viewer.getByRole('heading', { level: 2, name: /Event log/ }).innerText()).toBe('Event log');
    await viewer.goto(`${world.url}/${STACK}`);
    await project.cli('config', 'set', 'hold', '0');
    const next = await project.cli('up', '--yes', '--skip-preview');
    expect(next.status, next.stderr).toBe(0);

    await expect.poll(() => historyRows(viewer).count(), { timeout: 20_000 }).toBe(3);
    const rows = await historyRows(viewer).allInnerTexts();
    expect(rows[0]).toMatch(/^3\tupdate\tadmin\t.*Succeeded/s);
    expect(rows[1]).toMatch(/^2\tupdate\tadmin\t.*Abandoned \(lease expired\)/s);
    await historyRows(viewer).nth(1).getByRole('link', { name: '2' }).click();
    await viewer.waitForURL(`${world.url}/${STACK}/updates/2`);
    await expect.poll(() => viewer.getByTestId('update-result').innerText()).toMatch(/^Abandoned \(lease expired\)\n.*recorded it as failed/s);
    await shot(viewer, 'abandoned');
  });
});
