/**
 * Reading and changing the test provider's world (test/fixtures/providers/testprov/world.cjs) from tests: what its
 * "cloud" holds, and changes made behind the engine's back (a resource deleted or edited out of band), which the
 * provider sees on its next read exactly as it sees its own writes.
 */
import { createRequire } from 'node:module';
import type { PropertyMap } from '../../cli/engine/resource/properties.js';

interface WorldFile {
  put(id: string, outs: PropertyMap): void;
  remove(id: string): void;
  get(id: string): PropertyMap | undefined;
  ids(): string[];
  close(): void;
}

const require = createRequire(import.meta.url);
const { World } = require('../fixtures/providers/testprov/world.cjs') as { World: new (dir: string) => WorldFile };

/** Ids of the resources that exist in the world folder `dir`, sorted. */
export function worldIds(dir: string): string[] {
  return new World(dir).ids().sort();
}

/** The outputs the provider holds for `id`, or undefined when it does not exist. */
export function worldResource(dir: string, id: string): PropertyMap | undefined {
  return new World(dir).get(id);
}

/** Replaces a resource's outputs out of band, as a change made outside Pulumi. */
export function changeInWorld(dir: string, id: string, outs: PropertyMap): void {
  const world = new World(dir);
  world.put(id, outs);
  world.close();
}

/** Deletes a resource out of band, as a deletion made outside Pulumi. */
export function deleteFromWorld(dir: string, id: string): void {
  const world = new World(dir);
  world.remove(id);
  world.close();
}
