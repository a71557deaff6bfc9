// Shared bits of the pages: status badges, dates, loading and error lines.
import type { ComponentChildren } from 'preact';
import type { Loaded } from './hooks.js';

export const isoDay = (d: Date) => d.toISOString().slice(0, 10);
export const addDays = (n: number) => new Date(Date.now() + n * 86_400_000);

export function fmtTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

export function pct(v: number | null | undefined): string {
  return v === null || v === undefined ? '—' : `${(Math.round(v * 100) / 100).toFixed(2)} %`;
}

const TONE: Record<string, string> = {
  healthy: 'good',
  up: 'good',
  valid: 'good',
  active: 'good',
  sent: 'good',
  A: 'good',
  B: 'good',
  warning: 'warn',
  expiring_soon: 'warn',
  degraded: 'warn',
  C: 'warn',
  D: 'warn',
  pending: 'warn',
  critical: 'bad',
  down: 'bad',
  expired: 'bad',
  invalid: 'bad',
  error: 'bad',
  failed: 'bad',
  F: 'bad',
};

export function Badge({ value }: { value: string | null | undefined }) {
  const v = value ?? 'unknown';
  return <span class={`badge ${TONE[v] ?? 'none'}`}>{v.replace(/_/g, ' ')}</span>;
}

export function Days({ days }: { days: number | null | undefined }) {
  if (days === null || days === undefined) return <span class="muted">—</span>;
  const tone = days < 0 ? 'bad' : days <= 30 ? 'warn' : '';
  return <span class={tone}>{days}</span>;
}

export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="card" aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

/** The loading line, the error line, or the children once the data is there. */
export function Show<T>({ s, children }: { s: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (s.data !== undefined)
    return (
      <>
        {s.error && (
          <p class="error" role="alert">
            {s.error}
          </p>
        )}
        {children(s.data)}
      </>
    );
  if (s.error)
    return (
      <p class="error" role="alert">
        {s.error}
      </p>
    );
  return <p class="muted">Loading…</p>;
}
