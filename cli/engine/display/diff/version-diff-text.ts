/**
 * `stack diff`'s text: each changed resource as Pulumi's diff display shows a step (its header, `[id=…]` and
 * `[urn=…]`, then the property diff `--diff` prints), rebuilt from the changes the core reports, so unchanged
 * resources and unchanged properties never appear.
 */
import type { PropertyChange, StateDiff } from '../../../../shared/core/state-diff/types.js';
import { SECRET_SIG, SIG_KEY, type PropertyMap, type PropertyValue } from '../../resource/properties.js';
import { colorize, HEADLINE, RESET, type Colorization, type DisplayOp } from './colors.js';
import { printOldNewDiffs } from './diff-printer.js';
import { stepSummary, type StateMetadata, type StepMetadata } from './step-text.js';

/** What the service sends in place of a secret the caller may not (or did not ask to) see. */
const SECRET_MASK = '[secret]';

/**
 * A masked secret as the engine's secret value, so the printer shows it as Pulumi does (`[secret]`). Its hidden
 * value names the side, so a changed secret still reads as a change (`[secret] => [secret]`).
 */
function engineValue(value: unknown, side: 'old' | 'new'): PropertyValue {
  if (value === SECRET_MASK) return { [SIG_KEY]: SECRET_SIG, value: side } as PropertyValue;
  if (Array.isArray(value)) return value.map((item) => engineValue(item, side));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, engineValue(v, side)]));
  return value as PropertyValue;
}

function setAt(map: PropertyMap, path: readonly string[], value: unknown, side: 'old' | 'new'): void {
  let at = map;
  for (const key of path.slice(0, -1)) {
    const next = at[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) at[key] = {};
    at = at[key] as PropertyMap;
  }
  at[path[path.length - 1]!] = engineValue(value, side);
}

/** The old and new maps of one section (`inputs`, `outputs`, or the resource's fields) holding only what changed. */
function sections(changes: readonly PropertyChange[]): Map<string, { olds: PropertyMap; news: PropertyMap }> {
  const bySection = new Map<string, { olds: PropertyMap; news: PropertyMap }>();
  for (const change of changes) {
    const [root, ...rest] = change.path;
    if (root === undefined) continue;
    const section = root === 'inputs' || root === 'outputs' ? root : 'fields';
    const path = section === 'fields' ? change.path : rest;
    if (path.length === 0) continue;
    let maps = bySection.get(section);
    if (!maps) bySection.set(section, (maps = { olds: {}, news: {} }));
    // Both maps get the parents of a changed leaf, so an added or removed key shows inside its parent.
    if (change.kind !== 'add') setAt(maps.olds, path, change.old, 'old');
    else if (path.length > 1) setAt(maps.olds, path.slice(0, -1), {}, 'old');
    if (change.kind !== 'delete') setAt(maps.news, path, change.new, 'new');
    else if (path.length > 1) setAt(maps.news, path.slice(0, -1), {}, 'new');
  }
  return bySection;
}

function state(urn: string, type: string, id: string | undefined): StateMetadata {
  return { type, urn, custom: id !== undefined, id: id ?? '', parent: '', protect: false, inputs: {}, outputs: {}, provider: '' };
}

function header(op: DisplayOp, urn: string, type: string, oldId: string | undefined, newId: string | undefined): string {
  const step: StepMetadata = {
    op,
    urn,
    type,
    old: op === 'create' ? null : state(urn, type, oldId),
    new: op === 'delete' ? null : state(urn, type, newId),
    logical: true,
    provider: '',
  };
  return stepSummary(step, 1, false);
}

const SECTION_TITLES: Record<string, string> = { inputs: '', outputs: '--outputs:--', fields: '--resource options:--' };

function changesText(changes: readonly PropertyChange[], showSecrets: boolean): string {
  const out: string[] = [];
  for (const section of ['inputs', 'outputs', 'fields']) {
    const maps = sections(changes).get(section);
    if (!maps) continue;
    if (SECTION_TITLES[section]) out.push(`        ${SECTION_TITLES[section]}\n`);
    printOldNewDiffs(out, maps.olds, maps.news, undefined, { planning: false, summary: false, truncateOutput: true, showSecrets, indent: 2 });
  }
  return out.join('');
}

/** The resources a diff lists, each change in the order create, replace, update, delete, and the counts. */
export function resourceChangesText(diff: Omit<StateDiff, 'from' | 'to'>, showSecrets: boolean): string {
  const count = diff.added.length + diff.removed.length + diff.replaced.length + diff.updated.length;
  if (count === 0) return '    no resource changed\n';
  let text = '';
  for (const r of diff.added) text += header('create', r.urn, r.type, undefined, r.id);
  for (const r of diff.replaced) text += header('replace', r.urn, r.type, r.oldId, r.id) + changesText(r.diffs, showSecrets);
  for (const u of diff.updated) text += header('update', u.urn, u.type, undefined, undefined) + changesText(u.diffs, showSecrets);
  for (const r of diff.removed) text += header('delete', r.urn, r.type, r.id, undefined);
  const counts = [
    [diff.added.length, 'added'],
    [diff.replaced.length, 'replaced'],
    [diff.updated.length, 'updated'],
    [diff.removed.length, 'removed'],
  ].filter(([n]) => (n as number) > 0);
  return `${text}${HEADLINE}Resources:${RESET}\n    ${counts.map(([n, what]) => `${n} ${what}`).join(', ')}\n`;
}

/** The whole text of a diff: a headline, then `resourceChangesText`. */
export function versionDiffText(diff: StateDiff, stackName: string, options: { color: Colorization; showSecrets: boolean }): string {
  const headline = `${HEADLINE}Changes of ${stackName} from version ${diff.from} to version ${diff.to}:${RESET}\n`;
  return colorize(headline + resourceChangesText(diff, options.showSecrets), options.color);
}
