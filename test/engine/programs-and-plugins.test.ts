import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResourceState } from '../../cli/engine/state/deployment.js';
import { FIXTURES, pulumiHomeWith, TESTPROV_DIR, TestStack } from './engine-harness.js';

function resources(state: unknown): ResourceState[] {
  return ((state as { deployment?: { resources?: ResourceState[] } } | undefined)?.deployment?.resources ?? []);
}

/** A $PULUMI_HOME whose plugin cache holds testprov v1.0.0 (a wrapper that runs the fixture provider). */
function pulumiHomeWithTestprov(): string {
  return pulumiHomeWith('testprov', '1.0.0', join(TESTPROV_DIR, 'provider.cjs'));
}

describe('provider plugins', () => {
  it('finds a plugin in the $PULUMI_HOME plugins folder by package and version', async () => {
    const stack = new TestStack(join(FIXTURES, 'programs/plugins'), 'plugins', 'cache', { PULUMI_HOME: pulumiHomeWithTestprov() });
    const r = await stack.run('update', { 'plugins:mode': { value: 'versioned', secret: false } }, { projectPlugins: [] });
    expect(r.result.errors).toEqual([]);
    expect(r.result.ok).toBe(true);
    expect(r.result.outputs.createdBy).toBe('testprov');
    const provider = resources(r.state).find((x) => x.type === 'pulumi:providers:testprov');
    expect(provider?.urn).toMatch(/::pulumi:providers:testprov::default_1_0_0$/);
    expect(provider?.inputs?.version).toBe('1.0.0');
  }, 60_000);

  it('fails clearly when a plugin is missing and acquisition is off, naming package, version and the install command', async () => {
    const stack = new TestStack(join(FIXTURES, 'programs/plugins'), 'plugins', 'missing', {
      PULUMI_HOME: mkdtempSync(join(tmpdir(), 'stackyard-empty-home-')),
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: 'true',
    });
    const r = await stack.run('update', { 'plugins:mode': { value: 'missing', secret: false } }, { projectPlugins: [] });
    expect(r.result.ok).toBe(false);
    const message = r.result.errors.join('\n');
    expect(message).toContain("pulumi-resource-nosuchpkg");
    expect(message).toContain('v2.3.4');
    expect(message).toContain('stackyard plugin install resource nosuchpkg v2.3.4');
  }, 60_000);
});

describe('provider deadlines', () => {
  it('fails a provider call that exceeds its deadline instead of hanging the deployment', async () => {
    const stack = new TestStack(join(FIXTURES, 'programs/plugins'), 'plugins', 'hang');
    const started = Date.now();
    const r = await stack.run('update', { 'plugins:mode': { value: 'hang', secret: false } }, {
      timeouts: { callMs: 10_000, operationMs: 1_500, launchMs: 10_000 },
    });
    expect(r.result.ok).toBe(false);
    expect(r.result.errors.join('\n')).toMatch(/Create failed: deadline exceeded/);
    expect(Date.now() - started).toBeLessThan(15_000);
    const pending = (r.state?.deployment as { pending_operations?: unknown[] }).pending_operations ?? [];
    expect(pending).toEqual([]);
  }, 30_000);
});

describe('programs', () => {
  it('reports a failing program quickly and marks the run failed', async () => {
    const stack = new TestStack(join(FIXTURES, 'programs/failing'), 'failing');
    const started = Date.now();
    const r = await stack.run('update', {});
    const elapsed = Date.now() - started;
    expect(r.result.ok).toBe(false);
    const shown = r.diags.filter((d) => d.severity === 'error').map((d) => d.message).join('\n') + r.output;
    expect(shown).toContain('deliberate program failure');
    // Not a timing figure: a failure must end the run instead of waiting for a deadline (60 s) to expire.
    expect(elapsed).toBeLessThan(20_000);
  }, 30_000);

  it('cancels a program that never finishes, keeping what was created and deleting nothing', async () => {
    const stack = new TestStack(join(FIXTURES, 'programs/hanging'), 'hanging');
    const abort = new AbortController();
    // Long enough for the program to register `kept` on a loaded machine; the program itself never finishes.
    const timer = setTimeout(() => abort.abort(), 10_000);
    const r = await stack.run('update', {}, { signal: abort.signal });
    clearTimeout(timer);
    expect(r.result.ok).toBe(false);
    expect(r.result.errors.join('\n')).toContain('cancelled');
    expect(resources(r.state).some((x) => x.urn.endsWith('::kept'))).toBe(true);
  }, 30_000);

  it('runs a TypeScript program with a dynamic provider and a stack transform, then updates and destroys it', async () => {
    const stack = new TestStack(join(FIXTURES, 'programs/dynamic-ts'), 'dynamic-ts');
    const created = await stack.run('update', { 'dynamic-ts:who': { value: 'alice', secret: false } }, { program: { rootDir: join(FIXTURES, 'programs/dynamic-ts'), project: 'dynamic-ts', stack: 'dev', main: 'index.ts', runtimeOptions: { typescript: true } } });
    expect(created.result.errors).toEqual([]);
    expect(created.result.outputs.greeting).toBe('hello alice');
    // the stack transform added 100 to size before the provider saw it
    expect(created.result.outputs.widgetId).toBe('widget-alice-103');
    const widget = resources(created.state).find((x) => x.type === 'pulumi-nodejs:dynamic:Resource');
    expect(widget?.provider).toMatch(/::pulumi:providers:pulumi-nodejs::default::/);

    const updated = await stack.run('update', { 'dynamic-ts:who': { value: 'bob', secret: false } }, { program: { rootDir: join(FIXTURES, 'programs/dynamic-ts'), project: 'dynamic-ts', stack: 'dev', main: 'index.ts' } });
    expect(updated.result.errors).toEqual([]);
    expect(updated.result.outputs.greeting).toBe('hello again bob');

    const destroyed = await stack.run('destroy', {});
    expect(destroyed.result.ok).toBe(true);
    expect(resources(destroyed.state)).toEqual([]);
  }, 90_000);
});
