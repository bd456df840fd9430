/**
 * Pulumi's "Policies:" section (`ProgressDisplay.printPolicies`): each pack that ran, sorted by `name@vversion`,
 * marked ✅ (no violation), ⚠️ (advisory only) or ❌ (a mandatory one), with `(local: <path>)`; under it the
 * remediations (a count per policy, or each one with `--show-policy-remediations`) and then the violations, by
 * level, severity, policy and resource. A run with a mandatory violation ends after its diagnostics, without the
 * resource summary.
 */
import { deepEqual, type PropertyMap } from '../resource/properties.js';
import { urnName } from '../resource/urn.js';
import type { PolicyEvent, PolicyPackRun, PolicyRemediationApplied, PolicyViolation } from './policy-events.js';
import { typeDisplayName } from './property-text.js';
import { MAGENTA, paint, RED, YELLOW } from './render-text.js';

const LEVEL_RANK: Record<string, number> = { remediate: 0, mandatory: 1, advisory: 2, disabled: 3 };
const SEVERITY_RANK: Record<string, number> = { critical: 0, high: 1, medium: 2, low: 3, '': 4 };

interface PackSection {
  localPaths: string[];
  violations: PolicyViolation[];
  remediations: PolicyRemediationApplied[];
}

/** Collects a run's policy events and renders the section at the end. */
export interface PolicyCollector {
  policy(e: PolicyEvent): void;
  /** The section (empty when no pack ran), and whether it holds a mandatory violation. */
  section(runs: readonly PolicyPackRun[] | undefined, o: { color?: boolean; showRemediations?: boolean }): { text: string; mandatory: boolean };
}

function resourceClause(urn: string): string {
  if (!urn) return '';
  const type = urn.split('::')[2]?.split('$').at(-1) ?? '';
  return `  (${typeDisplayName(type)}: ${urnName(urn)})`;
}

/** Pulumi's `writeShortDiff` of a remediation: `diff: +added-removed~changed`. */
function shortDiff(before: PropertyMap, after: PropertyMap): string {
  const keys = (f: (k: string) => boolean, m: PropertyMap) => Object.keys(m).filter(f).sort();
  const adds = keys((k) => !(k in before), after);
  const deletes = keys((k) => !(k in after), before);
  const updates = keys((k) => k in before && !deepEqual(before[k], after[k]), after);
  const group = (sign: string, list: string[]) => (list.length ? `${sign}${list.join(',')}` : '');
  return `diff: ${group('+', adds)}${group('-', deletes)}${group('~', updates)}`;
}

/** A collector for one run. */
export function policyCollector(): PolicyCollector {
  const violations: PolicyViolation[] = [];
  const remediations: PolicyRemediationApplied[] = [];
  return {
    policy: (e) => {
      if (e.kind === 'violation') violations.push(e);
      else if (e.kind === 'remediation') remediations.push(e);
    },
    section: (runs, o) => {
      if (!runs?.length) return { text: '', mandatory: false };
      const packs = new Map<string, PackSection>();
      const sectionOf = (key: string) => packs.get(key) ?? packs.set(key, { localPaths: [], violations: [], remediations: [] }).get(key)!;
      for (const run of runs) {
        // a required pack's name carries no `|local|<path>`: it is listed without `(local: …)`
        const [name, , path] = run.nameForEvents.split('|');
        const pack = sectionOf(`${name}@v${run.version}`);
        if (path !== undefined) pack.localPaths.push(path);
      }
      for (const v of violations) sectionOf(`${v.policyPackName}@v${v.policyPackVersion}`).violations.push(v);
      for (const r of remediations) sectionOf(`${r.policyPackName}@v${r.policyPackVersion}`).remediations.push(r);
      let mandatory = false;
      let text = `${paint(o.color, MAGENTA, 'Policies:')}\n`;
      for (const key of [...packs.keys()].sort()) {
        const pack = packs.get(key)!;
        const mark = pack.violations.some((v) => v.enforcementLevel === 'mandatory') ? '❌' : pack.violations.length ? '⚠️' : '✅';
        if (mark === '❌') mandatory = true;
        const local = pack.localPaths.length ? ` (local: ${[...pack.localPaths].sort().join('; ')})` : '';
        text += `    ${mark} ${key}${local}\n`;
        text += remediationLines(pack.remediations, o.showRemediations === true);
        text += violationLines(pack.violations, o.color);
      }
      return { text: `${text}\n`, mandatory };
    },
  };
}

function remediationLines(list: readonly PolicyRemediationApplied[], detailed: boolean): string {
  const indent = '        - ';
  if (detailed) {
    return list
      .filter((r) => !deepEqual(r.before, r.after))
      .map((r) => `${indent}[remediate]  ${r.policyName}${resourceClause(r.urn)} [${shortDiff(r.before, r.after)}]\n`)
      .join('');
  }
  const counts = new Map<string, number>();
  for (const r of list) counts.set(r.policyName, (counts.get(r.policyName) ?? 0) + 1);
  return [...counts.keys()]
    .sort()
    .map((name) => `${indent}[remediate]  ${name}  (${counts.get(name)} ${counts.get(name) === 1 ? 'resource' : 'resources'})\n`)
    .join('');
}

function violationLines(list: readonly PolicyViolation[], color?: boolean): string {
  const sorted = [...list].sort(
    (a, b) =>
      (LEVEL_RANK[a.enforcementLevel] ?? 99) - (LEVEL_RANK[b.enforcementLevel] ?? 99) ||
      (SEVERITY_RANK[a.severity] ?? 99) - (SEVERITY_RANK[b.severity] ?? 99) ||
      cmp(a.policyName, b.policyName) ||
      cmp(a.urn, b.urn),
  );
  return sorted
    .map((v) => {
      const severity = v.severity ? ` [severity: ${v.severity}]` : '';
      const head = paint(color, v.enforcementLevel === 'mandatory' ? RED : YELLOW, `[${v.enforcementLevel}]${severity}  ${v.policyName}`);
      const message = v.message.replace(/\n$/, '').split('\n').map((l) => `          ${l}`).join('\n');
      return `        - ${head}${resourceClause(v.urn)}\n${message}\n`;
    })
    .join('');
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
