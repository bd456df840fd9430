/**
 * The console's environments (docs/console.md): an organization's list, an environment's definition with its secret
 * redacted (and revealed only through the audited reveal, for a user who may open it), its revision history, the
 * service's comparison of two revisions, and who opened what after `stackyard env open`. Chromium against
 * `stackyard serve`, as console.test.ts (console-harness.ts).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleWorld, shot } from './console-harness.js';

const SECRET = 'hunter2-in-the-console';
const ENV = '/api/esc/environments/acme/app/shared';

describe('the console on environments', () => {
  let world: ConsoleWorld;

  /** Saves a definition as alice (raw YAML, as ESC's client sends it). */
  async function save(yaml: string): Promise<void> {
    const response = await fetch(`${world.url}${ENV}`, { method: 'PATCH', headers: { authorization: `token ${world.tokens.alice}` }, body: yaml });
    if (response.status !== 200) throw new Error(`save: ${response.status} ${await response.text()}`);
  }

  async function environmentPage(token: string): Promise<Page> {
    const page = await world.browser();
    await world.signIn(page, token, '/acme/esc/app/shared');
    await page.getByTestId('definition-yaml').waitFor();
    return page;
  }

  beforeAll(async () => {
    world = await ConsoleWorld.start();
    const created = await world.api('POST', '/api/esc/environments/acme', { project: 'app', name: 'shared' }, world.tokens.alice);
    if (created.status !== 200) throw new Error(`create: ${JSON.stringify(created.json)}`);
    await save(`values:\n  password:\n    fn::secret: ${SECRET}\n  tier: silver\n`);
    await save(`values:\n  password:\n    fn::secret: ${SECRET}\n  tier: gold\n`);
    const { sandbox } = world.service;
    const opened = await sandbox.run(sandbox.root, ['env', 'open', 'acme/app/shared'], { env: { STACKYARD_ACCESS_TOKEN: world.tokens.alice } });
    if (opened.status !== 0) throw new Error(`env open: ${opened.stderr}`);
  });

  afterAll(async () => {
    await world?.stop();
  });

  it('lists the environments, shows the definition with its secret redacted, the history, a comparison and who opened it', async () => {
    const page = await world.browser();
    await world.signIn(page, world.tokens.alice, '/acme/esc');
    const row = page.getByTestId('environment-row-app/shared');
    expect((await row.innerText()).split('\t').map((cell) => cell.trim())).toEqual(['app/shared', '3', expect.any(String), 'alice']);

    await row.getByRole('link', { name: 'app/shared' }).click();
    await page.waitForURL(`${world.url}/acme/esc/app/shared`);
    const definition = page.getByTestId('definition-yaml');
    await expect.poll(() => definition.innerText()).toContain('tier: gold');
    expect(await definition.innerText()).toContain('ciphertext: [secret]');
    expect(await page.content()).not.toContain(SECRET);

    const history = page.getByTestId('environment-history').locator('tbody tr');
    expect(await history.count()).toBe(3);
    expect(await history.first().innerText()).toMatch(/^3\s+latest\s+alice\s/);

    await page.getByRole('button', { name: 'Compare' }).click();
    const diff = page.getByTestId('environment-diff');
    await expect.poll(() => diff.innerText()).toContain('-  tier: silver');
    expect(await diff.innerText()).toContain('+  tier: gold');
    expect(await diff.innerText()).not.toContain(SECRET);

    const activity = page.getByTestId('environment-activity').locator('tbody tr');
    await expect.poll(() => activity.first().innerText()).toMatch(/\talice\tOpened\t3$/);
    await shot(page, 'environment');
  });

  it('reveals secrets only through the audited reveal, for a user who may open the environment', async () => {
    const viewer = await environmentPage(world.tokens.victor);
    await viewer.getByRole('button', { name: 'Show secrets' }).click();
    await expect.poll(() => viewer.getByRole('alert').innerText()).toMatch(/'read' permission .* needs 'open'/);
    expect(await viewer.content()).not.toContain(SECRET);

    const page = await environmentPage(world.tokens.alice);
    await page.getByRole('button', { name: 'Show secrets' }).click();
    await expect.poll(() => page.getByTestId('definition-yaml').innerText()).toContain(`fn::secret: ${SECRET}`);
    const newest = page.getByTestId('environment-activity').locator('tbody tr').first();
    await expect.poll(() => newest.innerText()).toMatch(/\talice\tRevealed its secrets\t3$/);

    await page.getByRole('button', { name: 'Hide secrets' }).click();
    expect(await page.content()).not.toContain(SECRET);
  });

  it('edits the latest revision: a definition with errors is refused by line and column, a good one saved as the next revision', async () => {
    const page = await environmentPage(world.tokens.alice);
    await page.getByRole('button', { name: 'Edit the latest revision' }).click();
    const box = page.getByLabel('Definition (YAML)');
    await expect.poll(() => box.inputValue()).toContain('tier: gold');
    expect(await box.inputValue()).not.toContain(SECRET);
    const stored = await box.inputValue();

    await box.fill(`${stored}  broken: \${missing}\n`);
    await page.getByRole('button', { name: 'Save' }).click();
    const refused = page.getByTestId('editor-diagnostics');
    await expect.poll(() => refused.innerText()).toMatch(/^Nothing was saved:\s+6:\d+: .*missing/m);

    await box.fill(stored.replace('tier: gold', 'tier: platinum'));
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByTestId('editor-saved').innerText()).toContain('Saved revision 4.');
    await expect.poll(() => page.getByTestId('definition-yaml').innerText()).toContain('tier: platinum');
    expect(await page.getByTestId('definition-revision').innerText()).toBe('4');
    const stillSealed = await fetch(`${world.url}${ENV}`, { headers: { authorization: `token ${world.tokens.alice}` } });
    expect(await stillSealed.text()).not.toContain(SECRET);
  });
});
