import { plain, urnName, urnType } from '../format.js';

/** The policy events of Pulumi's engine events (apitype.PolicyEvent and the summaries) this section reads. */
export interface PolicyEngineEvents {
  policyEvent?: {
    resourceUrn?: string;
    message: string;
    policyName: string;
    policyPackName: string;
    policyPackVersionTag?: string;
    policyPackVersion?: string;
    enforcementLevel: string;
  };
  policyAnalyzeSummaryEvent?: PackSummaryEvent;
  policyRemediateSummaryEvent?: PackSummaryEvent;
  policyAnalyzeStackSummaryEvent?: PackSummaryEvent;
}

interface PackSummaryEvent {
  policyPackName: string;
  policyPackVersionTag?: string;
  policyPackVersion?: string;
  passed?: string[];
  failed?: string[];
}

interface PackResult {
  pack: string;
  /** Resources (and the stack) each pack's policies looked at. */
  checked: number;
  passed: Set<string>;
  failed: Set<string>;
  advisory: number;
  mandatory: number;
}

const packLabel = (e: { policyPackName: string; policyPackVersionTag?: string; policyPackVersion?: string }) =>
  `${e.policyPackName}@${e.policyPackVersionTag ?? e.policyPackVersion ?? ''}`;

/** `remediate` violations still reported count as `mandatory`, as Pulumi's summary counts them (docs/policy.md). */
const blocking = (level: string) => level === 'mandatory' || level === 'remediate';

/** Each pack that ran, with what passed and failed, in the order the events name them. */
function packResults(events: readonly PolicyEngineEvents[]): PackResult[] {
  const packs = new Map<string, PackResult>();
  const of = (label: string) => {
    const known = packs.get(label) ?? { pack: label, checked: 0, passed: new Set<string>(), failed: new Set<string>(), advisory: 0, mandatory: 0 };
    packs.set(label, known);
    return known;
  };
  for (const event of events) {
    const summary = event.policyAnalyzeSummaryEvent ?? event.policyAnalyzeStackSummaryEvent;
    if (summary) {
      const result = of(packLabel(summary));
      result.checked += 1;
      for (const name of summary.passed ?? []) result.passed.add(name);
      for (const name of summary.failed ?? []) result.failed.add(name);
    }
    if (event.policyRemediateSummaryEvent) of(packLabel(event.policyRemediateSummaryEvent));
    if (event.policyEvent) {
      const result = of(packLabel(event.policyEvent));
      result.failed.add(event.policyEvent.policyName);
      if (blocking(event.policyEvent.enforcementLevel)) result.mandatory += 1;
      else result.advisory += 1;
    }
  }
  return [...packs.values()];
}

const violationCount = (n: number, level: string) => `${n} ${level} violation${n === 1 ? '' : 's'}`;

function verdict(result: PackResult): { mark: string; text: string; class: string } {
  if (result.mandatory > 0) {
    const text = [violationCount(result.mandatory, 'mandatory'), ...(result.advisory > 0 ? [violationCount(result.advisory, 'advisory')] : [])].join(', ');
    return { mark: '❌', text, class: 'result-failed' };
  }
  if (result.advisory > 0) return { mark: '⚠️', text: violationCount(result.advisory, 'advisory'), class: 'result-in-progress' };
  return { mark: '✅', text: 'passed', class: 'result-succeeded' };
}

/** An update's "Policies" section: each pack's pass/fail summary and every violation; nothing when no pack ran. */
export function PolicyResults({ events }: { events: readonly PolicyEngineEvents[] }) {
  const packs = packResults(events);
  if (packs.length === 0) return null;
  const violations = events.flatMap((e, index) => (e.policyEvent ? [{ index, v: e.policyEvent }] : []));
  return (
    <>
      <h2>Policies</h2>
      <ul class="policy-packs" data-testid="policy-packs">
        {packs.map((result) => {
          const v = verdict(result);
          const passed = [...result.passed].filter((name) => !result.failed.has(name));
          return (
            <li key={result.pack}>
              <span aria-hidden="true">{v.mark}</span> <strong>{result.pack}</strong> <span class={`badge ${v.class}`}>{v.text}</span>
              <span class="muted">
                {' '}
                {result.checked} checked · passed: {passed.length > 0 ? passed.join(', ') : 'none'}
                {result.failed.size > 0 && ` · failed: ${[...result.failed].join(', ')}`}
              </span>
            </li>
          );
        })}
      </ul>
      {violations.length > 0 && (
        <div class="scroll">
          <table data-testid="policy-violations">
            <caption class="sr-only">Policy violations</caption>
            <thead>
              <tr>
                <th scope="col">Pack</th>
                <th scope="col">Policy</th>
                <th scope="col">Level</th>
                <th scope="col">Resource</th>
                <th scope="col">Message</th>
              </tr>
            </thead>
            <tbody>
              {violations.map(({ index, v }) => (
                <tr key={index}>
                  <td>{packLabel(v)}</td>
                  <th scope="row">{v.policyName}</th>
                  <td>
                    <span class={`badge ${blocking(v.enforcementLevel) ? 'result-failed' : 'result-in-progress'}`}>{v.enforcementLevel}</span>
                  </td>
                  <td>
                    {v.resourceUrn ? (
                      <>
                        <strong>{urnName(v.resourceUrn)}</strong> <span class="muted">{urnType(v.resourceUrn)}</span>
                      </>
                    ) : (
                      <span class="muted">the stack</span>
                    )}
                  </td>
                  <td class="policy-message">{plain(v.message)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
