// The stylesheet of public status pages, served as a file (/status/assets/status-page.css) so the
// pages need no inline style under their Content-Security-Policy. Light and dark from the system
// setting; readable from 360 px wide up.
export const STATUS_PAGE_CSS = `:root {
  color-scheme: light dark;
  --bg: #f7f8fa;
  --fg: #1c1e21;
  --muted: #5b6270;
  --card: #ffffff;
  --line: #dde1e6;
  --up: #1a7f37;
  --down: #c62828;
  --warn: #b26a00;
  --none: #c9ced6;
  --maint: #1f5fbf;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #111418;
    --fg: #e6e8eb;
    --muted: #a3abb8;
    --card: #1b2027;
    --line: #2f3640;
    --up: #3fb950;
    --down: #f85149;
    --warn: #d29922;
    --none: #3a424d;
  }
}
* { box-sizing: border-box; }
html { font-size: 100%; }
body {
  margin: 0;
  background: var(--bg);
  color: var(--fg);
  font: 1rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
}
.wrap { max-width: 52rem; margin: 0 auto; padding: 1rem; }
header h1 { font-size: 1.5rem; margin: 0.5rem 0; overflow-wrap: anywhere; }
header p { margin: 0.25rem 0; color: var(--muted); }
.summary {
  margin: 1rem 0;
  padding: 0.75rem 1rem;
  border-radius: 0.5rem;
  border: 1px solid var(--line);
  background: var(--card);
  font-weight: 600;
}
.summary.operational { border-left: 0.4rem solid var(--up); }
.summary.partial_outage { border-left: 0.4rem solid var(--warn); }
.summary.major_outage { border-left: 0.4rem solid var(--down); }
.summary.unknown { border-left: 0.4rem solid var(--none); }
.summary.maintenance { border-left: 0.4rem solid var(--maint); }
h2 { font-size: 1.2rem; margin: 1.5rem 0 0.5rem; }
.endpoint {
  background: var(--card);
  border: 1px solid var(--line);
  border-radius: 0.5rem;
  padding: 0.75rem 1rem;
  margin: 0 0 0.75rem;
}
.endpoint h3 {
  display: flex;
  flex-wrap: wrap;
  justify-content: space-between;
  gap: 0.25rem 1rem;
  font-size: 1rem;
  margin: 0 0 0.5rem;
  overflow-wrap: anywhere;
}
.state { font-weight: 600; white-space: nowrap; }
.state::before { content: "\\25CF\\00A0"; }
.state.up { color: var(--up); }
.state.down { color: var(--down); }
.state.unknown { color: var(--muted); }
.state.maintenance { color: var(--maint); }
.bars { display: flex; gap: 1px; height: 2rem; }
.bars span { flex: 1 1 0; min-width: 0; border-radius: 1px; background: var(--none); }
.bars .u-full { background: var(--up); }
.bars .u-high { background: var(--warn); }
.bars .u-low { background: var(--down); }
.meta {
  display: flex;
  flex-wrap: wrap;
  justify-content: space-between;
  gap: 0.25rem 1rem;
  margin: 0.4rem 0 0;
  color: var(--muted);
  font-size: 0.875rem;
}
.incidents { list-style: none; margin: 0; padding: 0; }
.incidents li { border-bottom: 1px solid var(--line); padding: 0.5rem 0; overflow-wrap: anywhere; }
.incidents .ongoing { color: var(--down); font-weight: 600; }
footer { margin: 2rem 0 1rem; color: var(--muted); font-size: 0.875rem; }
`;
