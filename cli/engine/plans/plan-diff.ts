/**
 * Property constraints of a plan (Pulumi's `checkDiff` in `pkg/resource/deploy/plan.go`): the diff of a program's
 * inputs against the old state must stay within the plan's adds, updates and deletes, where a value that was
 * unknown when the plan was made accepts any value, and an unknown that resolved to nothing accepts its absence.
 */
import { isSecret, UNKNOWN, type PropertyMap, type PropertyValue } from '../resource/properties.js';
import type { PlanDiff } from './plan-types.js';

/** Pulumi's `IsComputed`. */
function isUnknown(v: PropertyValue | undefined): boolean {
  return v === UNKNOWN;
}

/** Pulumi's `DeepEqualsIncludeUnknowns`: anything equals an unknown. */
export function equalWithUnknowns(a: PropertyValue | undefined, b: PropertyValue | undefined): boolean {
  if (isUnknown(a) || isUnknown(b)) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => equalWithUnknowns(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => k in b && equalWithUnknowns(a[k], b[k]));
  }
  return a === b;
}

/** Strict equality for diffs (an unknown equals only an unknown), as Pulumi's `Diff`. */
function strictEqual(a: PropertyValue | undefined, b: PropertyValue | undefined): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(v: PropertyValue | undefined): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k])]));
  return v;
}

/** Pulumi's `NewPlanDiff(olds.Diff(news))`: what a goal adds, deletes and updates. */
export function planDiffOf(olds: PropertyMap | undefined, news: PropertyMap): PlanDiff {
  const diff: PlanDiff = { adds: {}, deletes: [], updates: {} };
  const before = olds ?? {};
  for (const k of Object.keys(news)) {
    if (!(k in before)) diff.adds[k] = news[k]!;
    else if (!strictEqual(before[k], news[k])) diff.updates[k] = news[k]!;
  }
  for (const k of Object.keys(before)) if (!(k in news)) diff.deletes.push(k);
  return diff;
}

/**
 * A value as Go's `PropertyValue.String()` prints it in Pulumi's messages: `{bar}`, `{42}`, `{map[a:{42}]}`,
 * `output<string>{}` for an unknown; a secret's value is not printed.
 */
export function goValueText(v: PropertyValue | undefined): string {
  if (isUnknown(v)) return 'output<string>{}';
  if (isSecret(v ?? null)) return '{&{[secret]}}';
  return `{${goInner(v)}}`;
}

function goInner(v: PropertyValue | undefined): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goValueText).join(' ')}]`;
  if (typeof v === 'object') return `map[${Object.keys(v).sort().map((k) => `${k}:${goValueText(v[k])}`).join(' ')}]`;
  return String(v);
}

/** Pulumi's `PlanDiff.MakeError`: `<planned op><actual op><key>[<values>]`. */
function violation(plan: PlanDiff, key: string, actualOp: string, actual: PropertyValue | undefined): string {
  let expectedOp = '=';
  let expected: PropertyValue | undefined;
  if (key in plan.adds) [expectedOp, expected] = ['+', plan.adds[key]];
  else if (key in plan.updates) [expectedOp, expected] = ['~', plan.updates[key]];
  else if (plan.deletes.includes(key)) expectedOp = '-';
  let values = '';
  if (actual !== undefined && expected !== undefined) values = `[${goValueText(expected)}!=${goValueText(actual)}]`;
  else if (actual !== undefined) values = `[${goValueText(actual)}]`;
  else if (expected !== undefined) values = `[${goValueText(expected)}]`;
  return `${expectedOp}${actualOp}${key}${values}`;
}

/** Pulumi's `checkDiff`: `properties changed: …` (sorted), or undefined when `news` keeps to the plan. */
export function checkPlanDiff(olds: PropertyMap | undefined, news: PropertyMap, plan: PlanDiff): string | undefined {
  const actual = planDiffOf(olds, news);
  const out: string[] = [];
  for (const [k, v] of Object.entries(actual.adds)) {
    if (!(k in plan.adds) || !equalWithUnknowns(plan.adds[k], v)) out.push(violation(plan, k, '+', v));
  }
  for (const k of actual.deletes) {
    if (plan.deletes.includes(k)) continue;
    // planned as an update to an unknown that resolved to nothing: not a violation
    if (k in plan.updates && isUnknown(plan.updates[k])) continue;
    out.push(violation(plan, k, '-', undefined));
  }
  for (const [k, v] of Object.entries(actual.updates)) {
    const expected = k in plan.updates ? plan.updates[k] : k in plan.adds ? plan.adds[k] : undefined;
    const planned = k in plan.updates || k in plan.adds;
    if (!planned || !equalWithUnknowns(expected, v)) out.push(violation(plan, k, '~', v));
  }
  // the symmetric check: what the plan expected must be there
  for (const [k, expected] of Object.entries(plan.adds)) {
    if (k in actual.adds || k in actual.updates) continue;
    if (k in news) {
      if (!equalWithUnknowns(expected, news[k])) out.push(violation(plan, k, '=', news[k]));
    } else if (!isUnknown(expected)) out.push(violation(plan, k, '-', undefined));
  }
  for (const [k, expected] of Object.entries(plan.updates)) {
    if (k in actual.updates) continue;
    if (k in actual.adds) out.push(violation(plan, k, '+', actual.adds[k]));
    else if (k in news) {
      if (!equalWithUnknowns(expected, news[k])) out.push(violation(plan, k, '=', news[k]));
    } else if (!isUnknown(expected)) out.push(violation(plan, k, '-', undefined));
  }
  for (const k of plan.deletes) {
    if (actual.deletes.includes(k)) continue;
    if (k in actual.adds) out.push(violation(plan, k, '+', actual.adds[k]));
    else if (k in actual.updates) out.push(violation(plan, k, '~', actual.updates[k]));
    else if (k in news) out.push(violation(plan, k, '=', news[k]));
  }
  return out.length ? `properties changed: ${out.sort().join(', ')}` : undefined;
}
