/**
 * The text of one step in Pulumi's diff display (`object_diff.go`): the header (`+ type: (create)` with `[id=…]`,
 * `[urn=…]`, `[provider=…]` under it), the property details (the new values of a create, the diff of an update), and
 * the `--outputs:--` block once outputs are known. Steps arrive as Pulumi's event metadata (`apitype.StepEventMetadata`)
 * with values in wire form.
 */
import type { PropertyMap } from '../../resource/properties.js';
import { STACK_TYPE, urnName } from '../../resource/urn.js';
import { opColor, opPrefix, RESET, type DisplayOp } from './colors.js';
import type { PropertyDiff } from './detailed-diff.js';
import { printObjectPropertyDiff, printOldNewDiffs } from './diff-printer.js';
import { goQuoteToGraphic } from './go-text.js';
import { indentation, Printer, printObject, shouldPrint } from './property-printer.js';
import { anyChanges, deepEquals, diffKeys, diffObjects, diffValues, isInternalKey, kindOf, stableKeys, type ObjectDiff, type ValueDiff } from './values.js';

/** `apitype.StepEventStateMetadata`, values in wire form. */
export interface StateMetadata {
  type: string;
  urn: string;
  custom?: boolean;
  id: string;
  parent: string;
  protect?: boolean;
  retainOnDelete?: boolean;
  inputs: PropertyMap;
  outputs: PropertyMap;
  provider: string;
  initErrors?: string[];
}

/** `apitype.StepEventMetadata`. */
export interface StepMetadata {
  op: DisplayOp;
  urn: string;
  type: string;
  old: StateMetadata | null;
  new: StateMetadata | null;
  keys?: string[];
  diffs?: string[];
  detailedDiff?: Record<string, PropertyDiff> | null;
  logical?: boolean;
  provider: string;
}

/** Options the step text follows. */
export interface StepTextOptions {
  showUrns: boolean;
  summary: boolean;
  truncateOutput: boolean;
  showSecrets: boolean;
}

/** Whether a URN is the root stack's. */
export function isRootStack(urn: string): boolean {
  return urn !== '' && urn.split('::')[2] === STACK_TYPE;
}

/** Pulumi's `escapeURN`: characters that cannot be shown are escaped, quotes and backslashes are not. */
function escapeUrn(urn: string): string {
  return goQuoteToGraphic(urn).slice(1, -1).replaceAll('\\\\', '\\').replaceAll('\\"', '"');
}

function header(step: StepMetadata, showUrns: boolean): string {
  const { old, new: nv } = step;
  let lock = '';
  if (nv && !nv.protect && old?.protect) lock = ' 🔓';
  else if (nv?.protect || old?.protect) lock = ' 🔒';
  const retain = old?.retainOnDelete && ['delete', 'replace', 'create-replacement', 'delete-replaced'].includes(step.op) ? '[retain]' : '';
  return `${showUrns ? step.urn : step.type}: (${step.op}${retain})${lock}\n`;
}

/** `considerSameIfNotCreateOrDelete`: the id, urn and provider lines of an update read as unchanged. */
function simpleOp(op: DisplayOp): DisplayOp {
  return ['create', 'delete', 'delete-replaced', 'discard', 'discard-replaced'].includes(op) ? op : 'same';
}

function line(indent: number, op: DisplayOp, text: string): string {
  return opColor(op) + indentation(indent, op, false) + text + RESET;
}

/** `getResourcePropertiesSummary`: the step's header and pseudo-properties. */
export function stepSummary(step: StepMetadata, indent: number, showUrns: boolean): string {
  let text = indentation(indent, step.op, false) + opPrefix(step.op) + header(step, showUrns);
  const simple = simpleOp(step.op);
  const id = step.old?.id;
  if (id) text += line(indent + 1, simple, `[id=${id}]\n`);
  if (step.urn && !showUrns) text += line(indent + 1, simple, `[urn=${escapeUrn(step.urn)}]\n`);
  if (!step.provider) return text;
  const { old, new: nv } = step;
  if (old && nv && old.provider !== nv.provider) {
    const newId = nv.provider.slice(nv.provider.lastIndexOf('::') + 2);
    const newRef = kindOf(newId) === 'computed' ? `${nv.provider.slice(0, nv.provider.lastIndexOf('::'))}::[unknown]` : nv.provider;
    text += line(indent + 1, 'update', '[provider: ') + line(0, 'delete', old.provider) + line(0, 'update', ' => ');
    return text + line(0, 'create', newRef) + line(0, 'update', ']\n');
  }
  const providerUrn = step.provider.slice(0, step.provider.lastIndexOf('::'));
  if (urnName(providerUrn) !== 'default') text += line(indent + 1, simple, `[provider=${step.provider}]\n`);
  return text;
}

/** `getResourcePropertiesDetails`: what a create sets, a delete removed (not in a summary), an update changes. */
export function stepDetails(step: StepMetadata, indent: number, planning: boolean, o: StepTextOptions): string {
  const out: string[] = [];
  const state = { planning, indent: indent + 1, truncateOutput: o.truncateOutput, showSecrets: o.showSecrets };
  const { old, new: nv } = step;
  if (!old && nv) printObject(out, Object.keys(nv.outputs).length ? nv.outputs : nv.inputs, { ...state, op: step.op, prefix: false });
  else if (old && !nv) {
    if (!o.summary) printObject(out, old.inputs, { ...state, op: step.op, prefix: false });
  } else if (old && nv) {
    const include = step.diffs?.length ? step.diffs : undefined;
    const diffState = { ...state, summary: o.summary };
    if (Object.keys(nv.outputs).length && step.op !== 'import' && step.op !== 'import-replacement') printOldNewDiffs(out, old.outputs, nv.outputs, undefined, diffState);
    else printOldNewDiffs(out, old.inputs, nv.inputs, include, diffState);
  }
  return out.join('');
}

/** `massageStackPreviewAdd`: Pulumi's resource markers taken out of a stack output being added. */
function withoutResourceMarkers(v: ValueDiff['new']): ValueDiff['new'] {
  if (Array.isArray(v)) return v.map(withoutResourceMarkers);
  if (kindOf(v) !== 'object') return v;
  return Object.fromEntries(Object.entries(v as PropertyMap).filter(([k]) => k !== '@isPulumiResource').map(([k, x]) => [k, withoutResourceMarkers(x)]));
}

function massageValueDiff(d: ValueDiff): void {
  if (d.array) {
    for (const [i, v] of d.array.adds) d.array.adds.set(i, withoutResourceMarkers(v));
    for (const u of d.array.updates.values()) massageValueDiff(u);
  } else if (d.object) massageOutputDiff(d.object);
}

/** `massageStackPreviewOutputDiff`: a preview's stack outputs drop the unknowns of resources they hold. */
function massageOutputDiff(diff: ObjectDiff): void {
  const isResource = diff.adds.has('@isPulumiResource');
  if (isResource) {
    diff.adds.delete('@isPulumiResource');
    for (const [k, v] of diff.adds) if (kindOf(v) === 'computed') diff.adds.delete(k);
  }
  for (const [k, v] of diff.adds) diff.adds.set(k, withoutResourceMarkers(v));
  for (const [k, d] of diff.updates) {
    if (isResource && kindOf(d.new) === 'computed' && !shouldPrint(d.old, false)) {
      diff.updates.delete(k);
      continue;
    }
    massageValueDiff(d);
    if ((!anyChanges(d.object) && deepEquals(d.old, d.new)) || kindOf(d.new) === 'computed') diff.updates.delete(k);
  }
}

/**
 * `getResourceOutputsPropertiesString`: the outputs worth showing — those that differ from the inputs and, when
 * there were outputs before, those that changed (all of them with `showSames`, and always the stack's in an update).
 * A preview shows outputs only when they are known: the stack's, and those of reads, imports and refreshes.
 */
export function outputsText(step: StepMetadata, indent: number, planning: boolean, refresh: boolean, showSames: boolean, o: StepTextOptions): string {
  const root = isRootStack(step.urn);
  if (!showSames && !planning && root) showSames = true;
  if (planning && !(refresh || ['read', 'read-replacement', 'import', 'import-replacement'].includes(step.op) || root)) return '';
  if (step.old?.initErrors?.length) return '';
  const ins = step.new?.inputs ?? {};
  const outs = step.new?.outputs ?? {};
  let outputDiff: ObjectDiff | undefined;
  if (step.old) {
    outputDiff = diffObjects(step.old.outputs, outs, isInternalKey);
    if (planning && root && outputDiff) massageOutputDiff(outputDiff);
    if (!outputDiff && !showSames) return '';
  }
  const keys = outputDiff ? diffKeys(outputDiff) : stableKeys(outs);
  const width = Math.max(0, ...keys.map((k) => Buffer.byteLength(k)));
  const out: string[] = [];
  const p = new Printer(out, { op: step.op, planning, prefix: false, summary: false, indent, truncateOutput: o.truncateOutput, showSecrets: o.showSecrets });
  for (const k of keys) {
    const value = outs[k] ?? null;
    if (!outputDiff && (isInternalKey(k) || !shouldPrint(value, true))) continue;
    if (k in ins && !refresh && !diffValues(value, ins[k]!, isInternalKey)) continue;
    const changed = outputDiff && (outputDiff.adds.has(k) || outputDiff.deletes.has(k) || outputDiff.updates.has(k));
    if (!showSames && outputDiff && !changed) continue;
    if (outputDiff) printObjectPropertyDiff(p, k, width, outputDiff);
    else {
      p.title(k, width);
      p.printValue(value);
    }
  }
  return out.join('');
}
