import { useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  data?: T;
  error?: { status: number; message: string };
  reload(): void;
}

/**
 * Loads `load()` now and again every `intervalMs(data)` milliseconds (`undefined`: stop). Polling, not server-sent
 * events: API Gateway HTTP APIs buffer Lambda responses and cut them at 30 s, so a stream could not stay open.
 */
export function usePoll<T>(load: () => Promise<T>, deps: unknown[], intervalMs: (data: T | undefined) => number | undefined): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: { status: number; message: string } }>({});
  const [tick, setTick] = useState(0);
  const latest = useRef(load);
  latest.current = load;
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      let next: T | undefined;
      try {
        next = await latest.current();
        if (stopped) return;
        setState({ data: next });
      } catch (caught) {
        if (stopped) return;
        const error = caught as { status?: number; message: string };
        setState((old) => ({ ...old, error: { status: error.status ?? 0, message: error.message } }));
      }
      const wait = intervalMs(next);
      if (!stopped && wait !== undefined) timer = setTimeout(() => void run(), wait);
    };
    void run();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [...deps, tick]);
  return { ...state, reload: () => setTick((n) => n + 1) };
}
