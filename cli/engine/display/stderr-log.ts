/**
 * `--logtostderr`: the debug log on stderr, as Pulumi writes it there (its slog JSON handler: one object a line with
 * `time`, `level`, `msg` and the verbosity `v` the message was logged at). Pulumi logs each debug diagnostic at
 * verbosity 3 (`eventSink.Debugf`), so `-v=3` and above show them; stackyard writes no other log, and no log file.
 */
import type { EngineEvents } from './events.js';

/** The verbosity at which Pulumi's engine logs a debug diagnostic. */
const DEBUG_DIAGNOSTIC_VERBOSITY = 3;

/** The events that go to the stderr log at `verbosity` (`-v <level>`); none below Pulumi's level for them. */
export function stderrLogEvents(verbosity: number, write: (text: string) => void, now: () => number = Date.now): EngineEvents | undefined {
  if (verbosity < DEBUG_DIAGNOSTIC_VERBOSITY) return undefined;
  return {
    diag: (d) => {
      if (d.severity !== 'debug') return;
      const msg = d.message.endsWith('\n') ? d.message.slice(0, -1) : d.message;
      write(`${JSON.stringify({ time: new Date(now()).toISOString(), level: 'INFO', msg, v: DEBUG_DIAGNOSTIC_VERBOSITY })}\n`);
    },
  };
}
