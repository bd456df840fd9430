import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { changeInWorld, deleteFromWorld, worldIds, worldResource } from './testprov-world.js';

const require = createRequire(import.meta.url);
const { World } = require('../fixtures/providers/testprov/world.cjs') as {
  World: new (dir: string) => { put(id: string, outs: object): void; remove(id: string): void; get(id: string): object | undefined; close(): void };
};

describe("the test provider's world file", () => {
  const dirs: string[] = [];
  const scratch = () => {
    const dir = mkdtempSync(join(tmpdir(), 'stackyard-world-test-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('is empty before anything was written', () => {
    const dir = scratch();

    expect(worldIds(dir)).toEqual([]);
    expect(worldResource(dir, 'a')).toBeUndefined();
  });

  it("holds what the provider wrote, and a writer sees out-of-band changes made after it last read", () => {
    const dir = scratch();
    const provider = new World(dir);
    provider.put('a-1', { value: 1 });
    provider.put('b-2', { value: 2 });
    expect(provider.get('a-1')).toEqual({ value: 1 });

    changeInWorld(dir, 'a-1', { value: 1, serial: 42 });
    deleteFromWorld(dir, 'b-2');

    expect(provider.get('a-1')).toEqual({ value: 1, serial: 42 });
    expect(provider.get('b-2')).toBeUndefined();
    expect(worldIds(dir)).toEqual(['a-1']);
    provider.close();
  });

  it('is on disk as soon as put returns, before the writer closes or exits', () => {
    const dir = scratch();
    const provider = new World(dir);

    provider.put('a-1', { value: 1 });

    expect(readFileSync(join(dir, 'world.jsonl'), 'utf8')).toBe('{"id":"a-1","outs":{"value":1}}\n');
    expect(worldIds(dir)).toEqual(['a-1']);
    provider.close();
  });

  it('skips a record torn by a killed writer, and the next writer starts on a line of its own', () => {
    const dir = scratch();
    changeInWorld(dir, 'a-1', { value: 1 });
    appendFileSync(join(dir, 'world.jsonl'), '{"id":"b-2","ou');

    expect(worldIds(dir)).toEqual(['a-1']);
    changeInWorld(dir, 'c-3', { value: 3 });

    expect(worldIds(dir)).toEqual(['a-1', 'c-3']);
  });

  it('takes a line another process is still writing only once it is whole', () => {
    const dir = scratch();
    const reader = new World(dir);
    changeInWorld(dir, 'a-1', { value: 1 });
    appendFileSync(join(dir, 'world.jsonl'), '{"id":"b-2",');
    expect(reader.get('b-2')).toBeUndefined();

    appendFileSync(join(dir, 'world.jsonl'), '"outs":{"value":2}}\n');

    expect(reader.get('b-2')).toEqual({ value: 2 });
    expect(reader.get('a-1')).toEqual({ value: 1 });
  });
});
