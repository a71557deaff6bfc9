// The live feed (GET /ui/live, server-sent events): while it is open the server tells the page when
// something the team's pages show changed, and every view reads again at once (the Home reads only
// the rows the event names, see hooks.ts `onLive`); views do not poll then. Closed or refused (a fifth tab of one session, a proxy that drops streams), the views poll
// as before; the browser reconnects a dropped stream by itself, and a reconnect reads everything again.
import { liveChange, refreshAll } from './hooks.js';

let source: EventSource | null = null;
let open = false;

/** Whether the live feed is open now (views skip their timed reads then). */
export const liveOpen = () => open;

export function startLive(): void {
  if (source) return;
  const s = new EventSource('/ui/live');
  source = s;
  s.addEventListener('ready', () => {
    const was = open;
    open = true;
    // (Re)connected: whatever changed while the stream was down is read now.
    if (!was) refreshAll();
  });
  s.addEventListener('change', (e) => {
    let ids: string[] | null = null;
    try {
      const d = JSON.parse((e as MessageEvent<string>).data) as { ids?: unknown; all?: unknown };
      if (d.all === false && Array.isArray(d.ids)) ids = d.ids.filter((x): x is string => typeof x === 'string');
    } catch {
      // Not the shape expected: everything is read again.
    }
    liveChange(ids);
  });
  s.addEventListener('error', () => {
    open = false;
  });
}

export function stopLive(): void {
  source?.close();
  source = null;
  open = false;
}
