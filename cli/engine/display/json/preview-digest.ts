/**
 * `--json` for a preview (Pulumi's `ShowPreviewDigest`): one `display.PreviewDigest` document once the preview ends —
 * `config`, `steps`, `diagnostics`, `duration` (nanoseconds), `changeSummary`, each left out when empty — indented
 * four spaces, `<`, `>` and `&` escaped as Go's encoder escapes them. Steps are those Pulumi's `shouldShow` keeps for
 * JSON: every step but unchanged ones (unless `--show-sames`, or `protect` changed; the stack always) and the
 * create/delete halves of a replacement (unless `--show-replacement-steps`), each with its states as they were when
 * it started (a new state has no outputs yet), secrets as `[secret]`.
 */
import type { Display, DisplayFlags, DisplayOptions } from '../display-types.js';
import { displayConfig, displayResource } from '../engine-events.js';
import type { DetailedDiff, DiagEvent, StepEvent, StepOp } from '../events.js';
import { isDefaultProviderStep } from '../step-visibility.js';
import { STACK_TYPE } from '../../resource/urn.js';
import type { ResourceState } from '../../state/deployment.js';

/** `display.PreviewStep`. */
interface PreviewStep {
  op: StepOp;
  urn: string;
  provider?: string;
  oldState?: Record<string, unknown>;
  newState?: Record<string, unknown>;
  diffReasons?: string[];
  replaceReasons?: string[];
  /** `display.PropertyDiff` per path: `{kind, inputDiff}`; `null` when the provider gave no detailed diff. */
  detailedDiff: DetailedDiff | null;
}

/** `display.PreviewDiagnostic`. */
interface PreviewDiagnostic {
  urn?: string;
  message: string;
  severity: string;
}

/** Pulumi's `shouldShow` for the JSON display (`isRootStack` added): reads are listed too. */
function listed(e: StepEvent, o: DisplayFlags): boolean {
  if (isDefaultProviderStep(e)) return false;
  if (e.type === STACK_TYPE) return true;
  if (e.op === 'same') return (e.old?.protect ?? false) !== (e.new?.protect ?? false) || o.showSames === true;
  if (e.op === 'create-replacement' || e.op === 'delete-replaced') return o.showReplacementSteps === true;
  return true;
}

/** `apitype.ResourceV3` of a state: as the checkpoint stores it, but empty `inputs` and `outputs` left out (omitempty). */
function digestState(state: ResourceState): Record<string, unknown> {
  const out = displayResource(state);
  for (const key of ['inputs', 'outputs']) {
    const v = out[key];
    if (v === undefined || (typeof v === 'object' && v !== null && Object.keys(v).length === 0)) delete out[key];
  }
  return out;
}

/** Go's `json.MarshalIndent` escapes these in strings; JSON text has them nowhere else. */
function goJson(value: unknown): string {
  const escapes: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };
  return JSON.stringify(value, null, 4).replace(/[<>&\u2028\u2029]/g, (ch) => escapes[ch]!);
}

const PREFIX: Partial<Record<DiagEvent['severity'], string>> = { warning: 'warning: ', error: 'error: ' };

/** The preview-digest display. */
export function previewDigestDisplay(o: DisplayOptions): Display {
  const steps: PreviewStep[] = [];
  const diagnostics: PreviewDiagnostic[] = [];
  const note = (d: PreviewDiagnostic) => diagnostics.push({ ...d, message: d.message.endsWith('\n') ? d.message : `${d.message}\n` });
  return {
    events: {
      step: (e) => {
        if (e.phase !== 'start' || !listed(e, o)) return;
        const provider = e.new?.provider ?? e.old?.provider;
        steps.push({
          op: e.op,
          urn: e.urn,
          ...(provider ? { provider } : {}),
          ...(e.old ? { oldState: digestState(e.old) } : {}),
          ...(e.new ? { newState: digestState({ ...e.new, outputs: undefined }) } : {}),
          ...(e.diffKeys?.length ? { diffReasons: e.diffKeys } : {}),
          ...(e.replaceKeys?.length ? { replaceReasons: e.replaceKeys } : {}),
          detailedDiff: e.detailedDiff ?? null,
        });
      },
      diag: (d) => {
        if (d.severity === 'debug') return;
        note({ ...(d.urn ? { urn: d.urn } : {}), message: `${PREFIX[d.severity] ?? ''}${d.message}`, severity: d.severity });
      },
      programOutput: (stream, text) => note({ message: text, severity: stream === 'stderr' ? 'info#err' : 'info' }),
    },
    engineEvent: () => undefined,
    finish: (result, _preview, info = {}) => {
      const config = o.config ? displayConfig(o.config) : {};
      const digest = {
        ...(Object.keys(config).length ? { config } : {}),
        ...(steps.length ? { steps } : {}),
        ...(diagnostics.length ? { diagnostics } : {}),
        // Go's time.Duration: nanoseconds
        ...(info.durationMs ? { duration: Math.round(info.durationMs * 1e6) } : {}),
        ...(Object.keys(result.summary).length ? { changeSummary: result.summary } : {}),
      };
      o.write(`${goJson(digest)}\n`);
    },
  };
}
