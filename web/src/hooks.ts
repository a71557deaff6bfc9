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

const LIVE = 'dommon:live';
/**
 * The live feed's `change`: `ids` names the Home rows whose data moved (null: anything may have).
 * A view with `onLive` may read only what it needs; every other view reads again.
 */
export const liveChange = (ids: string[] | null) => dispatchEvent(new CustomEvent(LIVE, { detail: ids }));

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

/**
 * A view's own answer to the live feed's named rows: how to fold what it read of them into the data
 * shown (applied to the data as it is then), or null to read the whole view again (also what a
 * `change` without names does).
 */
export type OnLive<T> = (ids: string[], data: T) => Promise<((shown: T) => T) | null>;

export function usePoll<T>(load: () => Promise<T>, key: string, every = POLL_MS, onLive?: OnLive<T>): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const seq = useRef(0);
  const inFlight = useRef(false);
  const forced = useRef(false);
  // The data shown, for onLive (read in an event listener, so not from a render's closure).
  const latest = useRef<T | undefined>(undefined);
  latest.current = state.error ? undefined : state.data;
  const onLiveNow = useRef(onLive);
  onLiveNow.current = onLive;
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
    const live = (e: Event) => {
      const ids = (e as CustomEvent<string[] | null>).detail;
      const shown = latest.current;
      const patch = onLiveNow.current;
      if (!patch || ids === null || shown === undefined || inFlight.current) return run();
      // A patch that a later full read overtakes is dropped (the sequence moved).
      const mine = seq.current;
      patch(ids, shown).then(
        (fold) => {
          if (mine !== seq.current) return;
          if (fold === null) run();
          else setState((s) => (s.data === undefined || s.error ? s : { data: fold(s.data), loading: false }));
        },
        () => mine === seq.current && run(),
      );
    };
    addEventListener(LIVE, live);
    return () => {
      clearInterval(t);
      removeEventListener(REFRESH, run);
      removeEventListener(LIVE, live);
      seq.current++;
    };
  }, [run, every]);
  return { ...state, reload: run };
}
