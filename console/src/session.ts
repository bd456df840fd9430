/**
 * The signed-in session as the pages see it, apart from app.tsx: app.tsx routes to the pages, so a page that
 * imported it would import the app that loads it.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Session } from './api.js';

/** The session app.tsx loaded; provided around every signed-in page. */
export const SessionContext = createContext<Session | undefined>(undefined);

/** The signed-in session (only under SessionContext's provider, where it is always loaded). */
export function useSession(): Session {
  return useContext(SessionContext)!;
}

/** Only same-origin console paths may be a `next` (no `//host`, no scheme). */
export function safeNext(next: string | null | undefined): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}
