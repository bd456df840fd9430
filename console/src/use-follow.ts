import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.js';

/** A page of what is being followed and where the next one starts (`next` absent: it is complete). */
export interface FollowedPage<I> {
  items: I[];
  next?: string;
}

export interface Followed<H, I> {
  head?: H;
  items: I[];
  /** Until a page comes without a continuation: the thing is still running. */
  live: boolean;
  error?: { status: number; message: string };
}

const FOLLOW_INTERVAL_MS = 1500;

/**
 * Follows something that grows until it ends (an update and its events, a deployment run and its log): each tick
 * reads the head again, then the items after where the last page ended, until a page says there is no more. A 4xx
 * stops following (it will not get better); other failures are retried on the next tick. `readHead` gets the head
 * read on the previous tick, so a page opened by a version can go on by the id that version resolved to.
 */
export function useFollow<H, I>(
  readHead: (previous: H | undefined) => Promise<H>,
  readPage: (head: H, after: string | undefined) => Promise<FollowedPage<I>>,
  deps: unknown[],
): Followed<H, I> {
  const [head, setHead] = useState<H | undefined>();
  const [items, setItems] = useState<I[]>([]);
  const [live, setLive] = useState(true);
  const [error, setError] = useState<Followed<H, I>['error']>();
  const reads = useRef({ readHead, readPage });
  reads.current = { readHead, readPage };

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let after: string | undefined;
    let previous: H | undefined;
    setItems([]);
    setLive(true);
    const tick = async () => {
      try {
        const current = await reads.current.readHead(previous);
        if (stopped) return;
        previous = current;
        setHead(current);
        const page = await reads.current.readPage(current, after);
        if (stopped) return;
        if (page.items.length > 0) setItems((old) => [...old, ...page.items]);
        if (page.next === undefined) {
          setLive(false);
          return;
        }
        after = page.next;
      } catch (caught) {
        if (stopped) return;
        setError({ status: caught instanceof ApiError ? caught.status : 0, message: (caught as Error).message });
        if (caught instanceof ApiError && caught.status < 500) return;
      }
      timer = setTimeout(() => void tick(), FOLLOW_INTERVAL_MS);
    };
    void tick();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, deps);

  return { head, items, live, error };
}
