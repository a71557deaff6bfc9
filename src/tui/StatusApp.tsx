// The live dashboard: loads a snapshot from the source now and every `intervalMs`, and quits on `q`.
import React, { useCallback, useEffect, useRef, useState } from 'react';
import { useApp, useStdout } from 'ink';
import { Dashboard } from './Dashboard.js';
import type { Snapshot, StatusSource } from './model.js';

interface StatusAppProps {
  source: StatusSource;
  intervalMs: number;
  color?: boolean;
  now?: () => Date;
}

export function StatusApp({ source, intervalMs, color, now = () => new Date() }: StatusAppProps) {
  const { exit } = useApp();
  const { stdout } = useStdout();
  const [snapshot, setSnapshot] = useState<Snapshot | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  const busy = useRef(false);

  const refresh = useCallback(() => {
    if (busy.current) return;
    busy.current = true;
    source.load().then(
      (s) => {
        setSnapshot(s);
        setError(null);
      },
      (err: Error) => setError(`refresh failed: ${err.message}`),
    ).finally(() => {
      busy.current = false;
      setTick((t) => t + 1);
    });
  }, [source]);

  useEffect(() => {
    refresh();
    const t = setInterval(refresh, intervalMs);
    return () => clearInterval(t);
  }, [refresh, intervalMs]);

  void tick;
  return <Dashboard snapshot={snapshot} now={now()} color={color} height={stdout?.rows} error={error} onQuit={exit} onRefresh={refresh} />;
}
