/**
 * Pulumi's `TranslateDetailedDiff` (`pkg/engine/detailedDiff.go`): a provider's detailed diff (property path → kind)
 * turned into the object diff the display prints. Old values come from the old outputs (the old inputs for an
 * input diff), new values from the new inputs (the new outputs for a refresh's non-input diff).
 */
import { parsePropertyPath, UNKNOWN, type PropertyMap, type PropertyValue } from '../../resource/properties.js';
import { diffValues, emptyArrayDiff, emptyObjectDiff, kindOf, type ObjectDiff, type ValueDiff } from './values.js';

/** One entry of a detailed diff (`apitype.PropertyDiff`). */
export interface PropertyDiff {
  diffKind: 'add' | 'add-replace' | 'delete' | 'delete-replace' | 'update' | 'update-replace';
  inputDiff: boolean;
}

/** What the translation reads of a step. */
export interface DetailedDiffStep {
  detailedDiff: Record<string, PropertyDiff>;
  old?: { inputs: PropertyMap; outputs: PropertyMap } | null;
  new?: { inputs: PropertyMap; outputs: PropertyMap } | null;
}

type Element = string | number;

/** `getProperty`: the child at `key`, whether it exists; secrets, unknowns and outputs are opaque and answer for it. */
function childOf(key: Element, v: PropertyValue | undefined): [PropertyValue, boolean] {
  const kind = kindOf(v);
  if (kind === 'array') {
    const arr = v as PropertyValue[];
    return typeof key === 'number' && key >= 0 && key < arr.length ? [arr[key]!, true] : [null, false];
  }
  if (kind === 'object') {
    const obj = v as PropertyMap;
    return typeof key === 'string' && key in obj ? [obj[key]!, true] : [null, false];
  }
  if (kind === 'computed' || kind === 'output' || kind === 'secret') return [v!, true];
  return [null, false];
}

function leafChange(kind: PropertyDiff['diffKind'], old: [PropertyValue, boolean], nv: [PropertyValue, boolean]): { add?: PropertyValue; delete?: PropertyValue; update?: ValueDiff } {
  if (kind === 'add' || kind === 'add-replace') return { add: nv[1] ? nv[0] : UNKNOWN };
  if (kind === 'delete' || kind === 'delete-replace') return { delete: old[1] ? old[0] : UNKNOWN };
  return { update: diffValues(old[0], nv[0]) ?? { old: old[0], new: nv[0] } };
}

/** `addDiff`: records the change at `path` under `parent`, recursing through values both sides hold. */
function addDiff(path: Element[], kind: PropertyDiff['diffKind'], parent: ValueDiff, oldParent: PropertyValue, newParent: PropertyValue): void {
  const element = path[0]!;
  const old = childOf(element, oldParent);
  const nv = childOf(element, newParent);
  const leaf = path.length === 1;
  const into = <K>(d: { adds: Map<K, PropertyValue>; deletes: Map<K, PropertyValue>; updates: Map<K, ValueDiff> }, key: K) => {
    if (leaf) {
      const change = leafChange(kind, old, nv);
      if ('add' in change) d.adds.set(key, change.add!);
      else if ('delete' in change) d.deletes.set(key, change.delete!);
      else d.updates.set(key, change.update!);
    } else if (old[0] === null && nv[0] !== null) d.adds.set(key, nv[0]);
    else if (old[0] !== null && nv[0] === null) d.deletes.set(key, old[0]);
    else {
      const child = d.updates.get(key) ?? { old: null, new: null };
      addDiff(path.slice(1), kind, child, old[0], nv[0]);
      d.updates.set(key, child);
    }
  };
  if (typeof element === 'number') into((parent.array ??= emptyArrayDiff()), element);
  else into((parent.object ??= emptyObjectDiff()), element);
}

/** The object diff a detailed diff describes; undefined when it names nothing. */
export function translateDetailedDiff(step: DetailedDiffStep, refresh: boolean): ObjectDiff | undefined {
  const root: ValueDiff = { old: null, new: null };
  for (const [path, pdiff] of Object.entries(step.detailedDiff)) {
    let elements: Element[] = parsePropertyPath(path);
    if (elements.length === 0 || elements.includes('*')) elements = [path];
    const olds = (pdiff.inputDiff ? step.old?.inputs : step.old?.outputs) ?? {};
    const news = (refresh && !pdiff.inputDiff ? step.new?.outputs : step.new?.inputs) ?? {};
    addDiff(elements, pdiff.diffKind, root, olds, news);
  }
  return root.object;
}
