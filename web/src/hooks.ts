// Small hooks: the hash route, and data that reloads itself (polling while the tab is visible, and
// at once after a write anywhere in the page).
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { freshAnswers } from './api.js';
import { liveOpen } from './live.js';

export function useRoute(): string[] {
  const read = () => (location.hash.replace(/^#\/?/, '') || 'home').split('/').map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const on = () => setRoute(read());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

const REFRESH = 'dommon:refresh';
/** Tells every polling view to reload now (after a write). */
export const refreshAll = () => dispatchEvent(new Event(REFRESH));

/**
 * How often views poll. Every read is sent with If-None-Match (api.ts): an unchanged one is a 304
 * with no body, and a view whose reads were all unchanged is not drawn again.
 */
const POLL_MS = 10_000;

export interface Loaded<T> {
  data?: T;
  error?: string;
  loading: boolean;
  reload: () => void;
}

export function usePoll<T>(load: () => Promise<T>, key: string, every = POLL_MS): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const seq = useRef(0);
  const inFlight = useRef(false);
  const forced = useRef(false);
  const run = useCallback(() => {
    const mine = ++seq.current;
    // A run this one cuts short may already have taken the fresh answers (api.ts then answers this
    // one's reads as 304s from its store, and the answer count does not move): this run's data is
    // drawn whatever the count says, or the view would keep what it showed before the change.
    if (inFlight.current) forced.current = true;
    inFlight.current = true;
    const before = freshAnswers();
    const settle = () => {
      inFlight.current = false;
      const force = forced.current;
      forced.current = false;
      return force;
    };
    load().then(
      (data) => {
        if (mine !== seq.current) return;
        const force = settle();
        setState((s) =>
          !force && s.data !== undefined && !s.error && freshAnswers() === before ? s : { data, loading: false },
        );
      },
      (e: unknown) => {
        if (mine !== seq.current) return;
        settle();
        setState((s) => ({ ...s, error: String((e as Error).message ?? e), loading: false }));
      },
    );
  }, [key]);
  useEffect(() => {
    setState({ loading: true });
    run();
    // While the live feed is open the server says when to read again (live.ts): no timed reads.
    const t = setInterval(() => document.visibilityState === 'visible' && !liveOpen() && run(), every);
    addEventListener(REFRESH, run);
    return () => {
      clearInterval(t);
      removeEventListener(REFRESH, run);
      seq.current++;
    };
  }, [run, every]);
  return { ...state, reload: run };
}
