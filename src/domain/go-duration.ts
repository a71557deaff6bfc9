// Go's duration strings (time.ParseDuration), which Gatus's configuration and its external-endpoint
// reports use: an optional sign, then "0" or numbers each with its unit (`300ms`, `1.5h`, `1h30m`).

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};
const DURATION = /^[-+]?(?:0|(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+)$/;
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;

/** A Go duration string in milliseconds (fractions kept, sign applied); null when it is not one. */
export function goDurationMs(s: string): number | null {
  if (!DURATION.test(s)) return null;
  let ms = 0;
  for (const m of s.matchAll(PART)) ms += Number(m[1]) * UNIT_MS[m[2]!]!;
  return s.startsWith('-') ? -ms : ms;
}
