/**
 * An unknown value is never stored as if it were known. Outside a preview, an output that is still unknown at the
 * end of a run came from a resource that was not created or updated (untargeted, or skipped after a failure): it
 * keeps its previous value, or is left out. Pulumi stores its unknown placeholder there instead; docs/cli.md says
 * why we differ.
 */
import { containsUnknowns, type PropertyMap } from '../resource/properties.js';

/** `outputs` without unknown values, each replaced by its known previous value if there is one. */
export function withoutUnknowns(outputs: PropertyMap, previous: PropertyMap): { outputs: PropertyMap; unknown: { key: string; kept: boolean }[] } {
  const out: PropertyMap = {};
  const unknown: { key: string; kept: boolean }[] = [];
  for (const [key, value] of Object.entries(outputs)) {
    if (!containsUnknowns(value)) {
      out[key] = value;
      continue;
    }
    const kept = key in previous && !containsUnknowns(previous[key]);
    if (kept) out[key] = previous[key]!;
    unknown.push({ key, kept });
  }
  return { outputs: out, unknown };
}

/** The warning for an output left unknown by a run. */
export function unknownOutputMessage(noun: string, key: string, kept: boolean): string {
  return `${noun} "${key}" is not known after this run (it depends on a resource that was not created or updated); ${kept ? 'its previous value is kept' : 'it is not recorded'}`;
}
