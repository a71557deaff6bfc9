// The live dashboard: loads a snapshot from the source now and again after each interval, reads the
// extras of the rows on screen as they change, and quits on `q`.
import React, { useCallback, useEffect, useRef, useState } from 'react';
import { useApp, useStdout } from 'ink';
import { Dashboard } from './Dashboard.js';
import type { Row, Snapshot, StatusSource } from './model.js';

interface StatusAppProps {
  source: StatusSource;
  intervalMs: number;
  color?: boolean;
  now?: () => Date;
}

/**
 * The wait before the next full refresh: the interval asked for, or ten times what the last refresh
 * took when that is longer, so a large fleet is not re-read back to back (the dashboard then costs
 * the daemon at most about a tenth of the time it spends answering it).
 */
export function nextRefreshMs(intervalMs: number, lastLoadMs: number): number {
  return Math.max(intervalMs, 10 * lastLoadMs);
}

export function StatusApp({ source, intervalMs, color, now = () => new Date() }: StatusAppProps) {
  const { exit } = useApp();
  const { stdout } = useStdout();
  const [snapshot, setSnapshot] = useState<Snapshot | null>(null);
  const [error, setError] = useState<string | null>(null);
  const busy = useRef(false);
  const latest = useRef<Snapshot | null>(null);
  const windowRows = useRef<readonly Row[]>([]);
  const timer = useRef<NodeJS.Timeout | null>(null);
  const stopped = useRef(false);

  const show = useCallback((s: Snapshot) => {
    latest.current = s;
    setSnapshot(s);
    setError(null);
  }, []);

  const withDetails = useCallback(
    async (s: Snapshot, rows: readonly Row[]): Promise<Snapshot> =>
      source.details && rows.length ? source.details(s, rows) : s,
    [source],
  );

  const refresh = useCallback(() => {
    if (busy.current || stopped.current) return;
    busy.current = true;
    if (timer.current) clearTimeout(timer.current);
    const t0 = performance.now();
    source
      .load()
      .then(async (s) => {
        show(s);
        // The rows on screen keep their extras: re-read those whose last check moved.
        show(await withDetails(s, rowsOf(s, windowRows.current)));
      })
      .catch((err: Error) => setError(`refresh failed: ${err.message}`))
      .finally(() => {
        busy.current = false;
        if (!stopped.current) timer.current = setTimeout(refresh, nextRefreshMs(intervalMs, performance.now() - t0));
      });
  }, [source, intervalMs, show, withDetails]);

  const onWindow = useCallback(
    (rows: readonly Row[]) => {
      windowRows.current = rows;
      const s = latest.current;
      if (!s || !source.details) return;
      source.details(s, rows).then(
        (next) => {
          // A full refresh that landed meanwhile is newer: apply the extras to it on its own turn.
          if (latest.current === s) show(next);
        },
        (err: Error) => setError(`refresh failed: ${err.message}`),
      );
    },
    [source, show],
  );

  useEffect(() => {
    stopped.current = false;
    refresh();
    return () => {
      stopped.current = true;
      if (timer.current) clearTimeout(timer.current);
    };
  }, [refresh]);

  return (
    <Dashboard
      snapshot={snapshot}
      now={now()}
      color={color}
      height={stdout?.rows}
      error={error}
      onQuit={exit}
      onRefresh={refresh}
      onWindow={onWindow}
    />
  );
}

/** The same rows in a newer snapshot (by id): the window's rows carry the values of the snapshot they were drawn from. */
function rowsOf(s: Snapshot, rows: readonly Row[]): Row[] {
  if (!rows.length) return [];
  const byKey = new Map<string, Row>();
  for (const d of s.domains) {
    byKey.set(`domain:${d.id}`, d);
    for (const e of d.endpoints) byKey.set(`endpoint:${e.id}`, e);
  }
  return rows.map((r) => byKey.get(`${r.kind}:${r.id}`)).filter((r): r is Row => r !== undefined);
}
