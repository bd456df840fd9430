/**
 * `--json` outside a preview (Pulumi's `ShowJSONEvents`): each engine event on its own line as it is made, exactly
 * the event `--event-log` records and the service receives, nothing else on stdout. Pulumi drops its internal events
 * (a default provider's steps) after numbering them, so the sequence numbers keep their gaps.
 */
import type { Display, DisplayOptions } from '../display-types.js';
import { isDefaultProviderStep } from '../step-visibility.js';

/** The JSON-lines display. */
export function eventLinesDisplay(o: DisplayOptions): Display {
  return {
    events: {},
    engineEvent: (e) => {
      const step = 'resourcePreEvent' in e ? e.resourcePreEvent : 'resOutputsEvent' in e ? e.resOutputsEvent : 'resOpFailedEvent' in e ? e.resOpFailedEvent : undefined;
      if (step && isDefaultProviderStep(step.metadata)) return;
      o.write(`${JSON.stringify(e)}\n`);
    },
    finish: () => undefined,
  };
}
