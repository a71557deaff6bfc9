// The `dommon status` screen: one row per domain with its endpoints beneath; keys move, filter, sort,
// open a detail view and quit. Pure over its props (snapshot, now), so tests render it directly.
import React, { useEffect, useReducer, useRef } from 'react';
import { Box, Text, useInput, type Key } from 'ink';
import { age, counts, days, sparkline, SORTS, visibleRows, type Row, type Snapshot, type SortKey } from './model.js';

interface DashboardProps {
  snapshot: Snapshot | null;
  now: Date;
  /** colour on (TTY without NO_COLOR) */
  color?: boolean;
  /** rows of the terminal; the list scrolls within it */
  height?: number;
  error?: string | null;
  onQuit?: () => void;
  onRefresh?: () => void;
  /** keys off (for --once) */
  static?: boolean;
  /** The rows on screen (the list's window, or the detail's row), each time they change: their extras are read. */
  onWindow?: (rows: readonly Row[]) => void;
}

const STATUS_COLOR: Record<string, string> = {
  healthy: 'green',
  up: 'green',
  valid: 'green',
  warning: 'yellow',
  expiring_soon: 'yellow',
  critical: 'red',
  down: 'red',
  expired: 'red',
  invalid: 'red',
  error: 'red',
};
const GRADE_COLOR: Record<string, string> = { A: 'green', B: 'green', C: 'yellow', D: 'red', F: 'red' };

const W = { name: 34, health: 9, grade: 6, expiry: 8, ssl: 14, live: 6, spark: 24, last: 10 };

function Cell(props: {
  width?: number;
  color?: string;
  children: React.ReactNode;
  bold?: boolean;
  inverse?: boolean;
  dim?: boolean;
}) {
  return (
    <Box width={props.width} flexShrink={0} marginRight={1}>
      <Text wrap="truncate" color={props.color} bold={props.bold} inverse={props.inverse} dimColor={props.dim}>
        {props.children}
      </Text>
    </Box>
  );
}

function expiryColor(d: number | null): string | undefined {
  if (d === null) return undefined;
  return d <= 7 ? 'red' : d <= 30 ? 'yellow' : 'green';
}

function RowLine({ row, selected, now, color }: { row: Row; selected: boolean; now: Date; color: boolean }) {
  const c = (name: string | undefined) => (color ? name : undefined);
  const mark = selected ? '>' : ' ';
  if (row.kind === 'domain') {
    return (
      <Box>
        <Cell width={W.name + 2} bold inverse={selected && color}>{`${mark} ${row.name}`}</Cell>
        <Cell width={W.health} color={c(STATUS_COLOR[row.health])}>
          {row.health}
        </Cell>
        <Cell width={W.grade} color={c(GRADE_COLOR[row.grade?.[0] ?? ''])}>
          {row.grade ?? '-'}
        </Cell>
        <Cell width={W.expiry} color={c(expiryColor(row.expiryDays))}>
          {days(row.expiryDays)}
        </Cell>
        <Cell width={W.ssl} color={c(STATUS_COLOR[row.ssl ?? ''])}>
          {row.ssl ? `${row.ssl} ${days(row.sslDays)}` : '-'}
        </Cell>
        <Cell width={W.live}> </Cell>
        <Cell width={W.spark}> </Cell>
        <Cell width={W.last} dim={color}>
          {age(row.lastCheck, now)}
        </Cell>
      </Box>
    );
  }
  const spark = sparkline(row.recent);
  const last = row.recent[row.recent.length - 1];
  return (
    <Box>
      <Cell width={W.name + 2} inverse={selected && color}>{`${mark}   ${row.name} ${row.url}`}</Cell>
      <Cell width={W.health} color={c(STATUS_COLOR[row.health])}>
        {row.health}
      </Cell>
      <Cell width={W.grade}> </Cell>
      <Cell width={W.expiry}> </Cell>
      <Cell width={W.ssl} color={c(STATUS_COLOR[row.ssl ?? ''])}>
        {row.ssl ? `${row.ssl} ${days(row.sslDays)}` : '-'}
      </Cell>
      <Cell width={W.live} color={c(STATUS_COLOR[row.liveness ?? ''])}>
        {row.liveness ?? '-'}
      </Cell>
      <Cell width={W.spark} color={c(row.liveness === 'down' ? 'red' : 'cyan')}>
        {spark ? `${spark} ${last?.ok ? `${last.ms}ms` : 'fail'}` : '-'}
      </Cell>
      <Cell width={W.last} dim={color}>
        {age(row.lastCheck, now)}
      </Cell>
    </Box>
  );
}

function Detail({ row, now, color }: { row: Row; now: Date; color: boolean }) {
  const line = (k: string, v: unknown, col?: string) => (
    <Box key={k}>
      <Box width={22} flexShrink={0}>
        <Text dimColor={color}>{k}</Text>
      </Box>
      <Text color={color ? col : undefined}>{v === null || v === undefined || v === '' ? '-' : String(v)}</Text>
    </Box>
  );
  const fields =
    row.kind === 'domain'
      ? [
          line('domain', row.name),
          line('verified', row.verified ? 'yes' : 'no'),
          line('health', row.health, STATUS_COLOR[row.health]),
          line('grade / score', row.grade ? `${row.grade} (${row.score ?? '-'})` : null),
          line(
            'registration expiry',
            row.expiryDate ? `${row.expiryDate} (${days(row.expiryDays)})` : null,
            expiryColor(row.expiryDays),
          ),
          line('registrar', row.registrar),
          line(
            'certificates',
            row.ssl ? `${row.ssl}, soonest in ${days(row.sslDays)}` : null,
            STATUS_COLOR[row.ssl ?? ''],
          ),
          line('endpoints', row.endpoints.map((e) => e.name).join(', ')),
          line('last check', row.lastCheck ? `${row.lastCheck} (${age(row.lastCheck, now)})` : null),
          line('id', row.id),
        ]
      : [
          line('endpoint', `${row.name} (${row.type})`),
          line('url', row.url),
          line('enabled', row.enabled ? 'yes' : 'no'),
          line('health', row.health, STATUS_COLOR[row.health]),
          line(
            'certificate',
            row.ssl ? `${row.ssl}, expires ${row.sslExpiry ?? '-'} (${days(row.sslDays)})` : null,
            STATUS_COLOR[row.ssl ?? ''],
          ),
          line('liveness', row.liveness, STATUS_COLOR[row.liveness ?? '']),
          line('uptime 24h', row.uptime24h === null ? null : `${row.uptime24h}%`),
          line('avg response', row.avgMs === null ? null : `${row.avgMs} ms`),
          line(
            'recent',
            row.recent.length
              ? `${sparkline(row.recent, 40)}  ${row.recent
                  .map((r) => (r.ok ? r.ms : 'x'))
                  .slice(-10)
                  .join(' ')}`
              : null,
          ),
          line('last check', row.lastCheck ? `${row.lastCheck} (${age(row.lastCheck, now)})` : null),
          line('id', row.id),
        ];
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      {fields}
      <Text dimColor={color}>Enter/Esc back · q quit</Text>
    </Box>
  );
}

interface ViewState {
  cursor: number;
  filter: string;
  typing: boolean;
  sort: SortKey;
  detail: boolean;
  quit: boolean;
  refreshes: number;
}

const INITIAL_VIEW: ViewState = {
  cursor: 0,
  filter: '',
  typing: false,
  sort: 'name',
  detail: false,
  quit: false,
  refreshes: 0,
};

type KeyAction = { input: string; key: Key; snapshot: Snapshot | null };

/**
 * Every key press as a pure state transition. React applies queued actions in order on the latest
 * state, so keys typed faster than the screen renders are never lost or applied to a stale screen.
 */
function onKey(s: ViewState, a: KeyAction): ViewState {
  // A chunk of several characters (fast typing, paste, tmux send-keys) is applied one key at a time.
  if (a.input.length > 1 && !a.key.ctrl && !a.key.meta && !a.input.startsWith('\u001b')) {
    const plain = Object.fromEntries(Object.keys(a.key).map((k) => [k, false])) as unknown as Key;
    return [...a.input].reduce(
      (st, ch) =>
        oneKey(st, {
          ...a,
          input: ch === '\r' || ch === '\n' ? '' : ch,
          key: { ...plain, return: ch === '\r' || ch === '\n' },
        }),
      s,
    );
  }
  return oneKey(s, a);
}

function oneKey(s: ViewState, { input, key, snapshot }: KeyAction): ViewState {
  const count = (v: ViewState) => (snapshot ? visibleRows(snapshot, v.filter, v.sort).length : 0);
  const clamp = (v: ViewState, c: number) => Math.max(0, Math.min(c, count(v) - 1));
  if (s.typing) {
    if (key.escape) return { ...s, typing: false, filter: '', cursor: 0 };
    if (key.return) return { ...s, typing: false };
    if (key.backspace || key.delete) return { ...s, filter: s.filter.slice(0, -1), cursor: 0 };
    if (input && !key.ctrl && !key.meta) return { ...s, filter: s.filter + input, cursor: 0 };
    return s;
  }
  if (s.detail) {
    if (key.return || key.escape) return { ...s, detail: false };
    if (input === 'q') return { ...s, quit: true };
    return s;
  }
  if (input === 'q' || (key.ctrl && input === 'c')) return { ...s, quit: true };
  if (key.downArrow || input === 'j') return { ...s, cursor: clamp(s, clamp(s, s.cursor) + 1) };
  if (key.upArrow || input === 'k') return { ...s, cursor: clamp(s, clamp(s, s.cursor) - 1) };
  if (input === 'g') return { ...s, cursor: 0 };
  if (input === 'G') return { ...s, cursor: clamp(s, count(s) - 1) };
  if (input === '/') return { ...s, typing: true };
  if (input === 's') return { ...s, sort: SORTS[(SORTS.indexOf(s.sort) + 1) % SORTS.length]! };
  if (input === 'r') return { ...s, refreshes: s.refreshes + 1 };
  if (key.return && count(s)) return { ...s, detail: true };
  if (key.escape) return { ...s, filter: '', cursor: 0 };
  return s;
}

export function Dashboard(p: DashboardProps) {
  const color = p.color ?? true;
  const [view, dispatch] = useReducer(onKey, INITIAL_VIEW);
  const { filter, typing, sort, detail } = view;
  const rows = p.snapshot ? visibleRows(p.snapshot, filter, sort) : [];
  const sel = Math.min(view.cursor, Math.max(0, rows.length - 1));
  const { onQuit, onRefresh, onWindow } = p;
  // Scroll: keep the selection inside the window the terminal leaves for rows.
  const room = Math.max(3, (p.height ?? 1000) - 6);
  const start = Math.max(0, Math.min(sel - Math.floor(room / 2), rows.length - room));
  const shown = detail && rows[sel] ? [rows[sel]!] : rows.slice(start, start + room);
  const windowKey = shown.map((r) => `${r.kind}:${r.id}:${r.kind === 'endpoint' ? r.lastCheck : ''}`).join(',');
  // `shown` is a new array each render: the effect runs when the key (the rows and their last checks) changes.
  const shownRef = useRef(shown);
  shownRef.current = shown;
  useEffect(() => {
    if (shownRef.current.length) onWindow?.(shownRef.current);
  }, [windowKey, onWindow]);
  useEffect(() => {
    if (view.quit) onQuit?.();
  }, [view.quit, onQuit]);
  useEffect(() => {
    if (view.refreshes) onRefresh?.();
  }, [view.refreshes, onRefresh]);

  useInput((input, key) => dispatch({ input, key, snapshot: p.snapshot }), { isActive: !p.static });

  const n = p.snapshot ? counts(p.snapshot) : null;
  const header = (
    <Box>
      <Text bold>dommon status</Text>
      <Text>
        {n
          ? `  ${n.domains} domain(s), ${n.endpoints} endpoint(s)  ${n.up} up  ${n.down} down  ${n.critical} critical  ${n.warning} warning`
          : '  loading...'}
      </Text>
      <Text dimColor={color}>{p.snapshot ? `  updated ${p.snapshot.at.slice(11, 19)}Z` : ''}</Text>
    </Box>
  );
  const status = (
    <Box>
      <Text dimColor={color}>{`sort: ${sort}`}</Text>
      <Text color={color && typing ? 'cyan' : undefined}>
        {filter || typing ? `  filter: ${filter}${typing ? '_' : ''}` : ''}
      </Text>
      {p.error ? <Text color={color ? 'red' : undefined}>{`  ${p.error}`}</Text> : null}
    </Box>
  );
  const keys = <Text dimColor={color}>↑/↓ j/k move · / filter · s sort · Enter detail · r refresh · q quit</Text>;

  if (detail && rows[sel]) {
    return (
      <Box flexDirection="column">
        {header}
        <Detail row={rows[sel]!} now={p.now} color={color} />
      </Box>
    );
  }
  return (
    <Box flexDirection="column">
      {header}
      {status}
      <Box>
        <Cell width={W.name + 2} bold>
          {'  NAME'}
        </Cell>
        <Cell width={W.health} bold>
          HEALTH
        </Cell>
        <Cell width={W.grade} bold>
          GRADE
        </Cell>
        <Cell width={W.expiry} bold>
          EXPIRES
        </Cell>
        <Cell width={W.ssl} bold>
          SSL
        </Cell>
        <Cell width={W.live} bold>
          LIVE
        </Cell>
        <Cell width={W.spark} bold>
          RESPONSE
        </Cell>
        <Cell width={W.last} bold>
          CHECKED
        </Cell>
      </Box>
      {shown.length ? (
        shown.map((r, i) => (
          <RowLine
            key={`${r.kind}:${r.id}`}
            row={r}
            selected={!p.static && start + i === sel}
            now={p.now}
            color={color}
          />
        ))
      ) : (
        <Text>
          {p.snapshot
            ? filter
              ? `nothing matches "${filter}"`
              : 'no domains yet: dommon domains add example.com'
            : ''}
        </Text>
      )}
      {p.static ? null : keys}
    </Box>
  );
}
