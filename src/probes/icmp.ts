// icmp liveness: echo requests to the endpoint's host, by the system's `ping` (iputils), run with
// execFile and its summary parsed. The daemon needs no privilege of its own: ping opens an
// unprivileged ICMP socket where net.ipv4.ping_group_range allows the daemon's group, and otherwise
// holds the capability for a raw socket itself (Debian installs it with cap_net_raw). The host is
// resolved by the guarded resolver first, so the outbound policy applies, and ping is given the
// address only (it resolves nothing itself). Without conditions, up when replies come back within
// the loss allowed; with conditions (Gatus's `[CONNECTED]`, `[RESPONSE_TIME]`, `[IP]`, and dommon's
// `[PACKET_LOSS]`), they alone decide, as they do in Gatus.
import { execFile } from 'node:child_process';
import {
  evaluateConditions,
  parseConditions,
  type ConditionContext,
  type ConditionSet,
  type Placeholder,
} from '../domain/conditions.js';
import { hostOf } from '../domain/endpoint.js';
import { round2, type IcmpStats } from '../domain/liveness.js';
import type { EndpointPlugin, ProbeSettings, ProbeTarget } from './plugin.js';
import { deadline, failedWith, failure, passed, raceSignal, type ProbeDeps, type ProbeOutcome } from './types.js';

/** Seconds between two echo requests: the shortest iputils lets an unprivileged user ask for. */
const INTERVAL_S = 0.2;

const FIELDS = {
  count: {
    type: 'integer',
    minimum: 1,
    maximum: 20,
    default: 3,
    description: 'echo requests sent per check, 0.2 s apart',
  },
  max_loss_percent: {
    type: 'integer',
    minimum: 0,
    maximum: 100,
    default: 50,
    description: 'the check fails when more than this share of the echo requests go unanswered',
  },
} as const;

/**
 * ping's closing summary (LC_ALL=C) as numbers: the counts line (`3 packets transmitted, 2 received`,
 * iputils; `3 packets transmitted, 2 packets received`, BusyBox and BSD) and the round trips line
 * (`rtt min/avg/max/mdev = a/b/c/d ms`, iputils; `round-trip min/avg/max = a/b/c ms`, BusyBox;
 * `round-trip min/avg/max/stddev = ...`, BSD and macOS). The loss is worked out from the counts (ping
 * prints it with a precision of its own). null when there is no counts line.
 */
export function parsePingSummary(out: string): IcmpStats | null {
  const counts = /(\d+) packets transmitted, (\d+) (?:packets )?received/.exec(out);
  if (!counts) return null;
  const sent = Number(counts[1]);
  const received = Number(counts[2]);
  const rtt = /(?:rtt|round-trip) min\/avg\/max(\/m?stddev|\/mdev)? = ([\d.]+)\/([\d.]+)\/([\d.]+)(?:\/([\d.]+))?/.exec(
    out,
  );
  const ms = (i: number) => (rtt?.[i] === undefined ? null : Number(rtt[i]));
  return {
    packets_sent: sent,
    packets_received: received,
    loss_percent: sent ? round2(((sent - received) / sent) * 100) : 100,
    rtt_min_ms: ms(2),
    rtt_avg_ms: ms(3),
    rtt_max_ms: ms(4),
    rtt_mdev_ms: rtt?.[1] ? ms(5) : null,
  };
}

/** Runs ping; resolves with what it printed, whatever its exit status (1: some or all echoes unanswered). */
function runPing(args: string[], signal: AbortSignal): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      'ping',
      args,
      { signal, env: { ...process.env, LC_ALL: 'C' }, maxBuffer: 256 * 1024, windowsHide: true },
      (err: Error | null, stdout, stderr) => {
        // A numeric code is ping's exit status (1: echoes unanswered), not a failure to run it.
        if (err && (typeof (err as NodeJS.ErrnoException).code !== 'number' || signal.aborted)) reject(err);
        else resolve({ stdout, stderr });
      },
    );
  });
}

/** The type's fields of a target (a `dommon check` target has none: the defaults). */
function settingsOf(e: ProbeTarget): { count: number; maxLoss: number } {
  const s = e.settings ?? {};
  return {
    count: typeof s.count === 'number' ? s.count : FIELDS.count.default,
    maxLoss: typeof s.max_loss_percent === 'number' ? s.max_loss_percent : FIELDS.max_loss_percent.default,
  };
}

/** The placeholders an icmp check supplies. */
const ICMP_PLACEHOLDERS: readonly Placeholder[] = [
  'CONNECTED',
  'RESPONSE_TIME',
  'IP',
  'PACKET_LOSS',
  'DOMAIN_EXPIRATION',
];

/** The configuration's own conditions, parsed once per configuration object; null when it has none. */
const conditionsOf = new WeakMap<ProbeSettings, ConditionSet | null>();

function conditionSet(c: ProbeSettings | undefined): ConditionSet | null {
  if (!c) return null;
  let set = conditionsOf.get(c);
  if (set === undefined) {
    set = c.conditions?.length ? parseConditions(c.conditions, { placeholders: ICMP_PLACEHOLDERS }) : null;
    conditionsOf.set(c, set);
  }
  return set;
}

/** The longest error text a failed condition list leaves in a result. */
const MAX_CONDITION_ERROR = 500;

/** The conditions' verdict on what a check saw; a failure keeps the echo numbers when there are some. */
function judged(set: ConditionSet, context: ConditionContext, ms: number, otherwise: ProbeOutcome): ProbeOutcome {
  const out = evaluateConditions(set, context);
  if (out.ok) return { ...passed(ms), ...(otherwise.detail && { detail: otherwise.detail }) };
  let text = out.failures.map((f) => f.seen).join('; ');
  if (text.length > MAX_CONDITION_ERROR) text = `${text.slice(0, MAX_CONDITION_ERROR)}...`;
  return { ...failure('condition', text, ms), ...(otherwise.detail && { detail: otherwise.detail }) };
}

/**
 * [DOMAIN_EXPIRATION]: the time left until the endpoint's domain's stored registration expiry (one
 * read by the domain's key); unknown leaves it out, which reads as 0.
 */
async function storedValues(e: ProbeTarget, set: ConditionSet, deps: ProbeDeps): Promise<ConditionContext> {
  if (!set.uses.has('DOMAIN_EXPIRATION') || !e.domain_id || !deps.domainExpiry) return {};
  const ms = await deps.domainExpiry(e.domain_id);
  return ms === null ? {} : { DOMAIN_EXPIRATION: ms };
}

export async function probeIcmp(
  e: ProbeTarget,
  timeoutMs: number,
  deps: ProbeDeps,
  parent: AbortSignal,
  config?: ProbeSettings,
): Promise<ProbeOutcome> {
  let conditions: ConditionSet | null;
  try {
    // Stored conditions were parsed when written; one that no longer parses fails every check plainly.
    conditions = conditionSet(config);
  } catch (err) {
    return failure('error', `conditions: ${(err as Error).message}`, 0);
  }
  if (!conditions) return echo(e, timeoutMs, deps, parent);
  let known: ConditionContext;
  try {
    known = await storedValues(e, conditions, deps);
  } catch (err) {
    return failure('error', `the domain's registration expiry cannot be read: ${(err as Error).message}`, 0);
  }
  const set = conditions;
  let ip: string | undefined;
  const o = await echo(e, timeoutMs, deps, parent, (address) => (ip = address));
  const icmp = o.detail?.icmp;
  if (icmp) {
    // Gatus's [CONNECTED]: some echo came back. The loss is rounded up, so that any loss shows.
    return judged(
      set,
      {
        ...known,
        CONNECTED: icmp.packets_received > 0,
        RESPONSE_TIME: o.responseTimeMs,
        IP: ip ?? '',
        PACKET_LOSS: Math.ceil(icmp.loss_percent),
      },
      o.responseTimeMs,
      o,
    );
  }
  // No summary (the name did not resolve, ping could not run or was stopped): a failed check, unless
  // the conditions judge the connection ([CONNECTED] == false); never for a denied or cancelled one.
  if (!set.uses.has('CONNECTED') || o.reason === 'cancelled' || o.reason === 'denied') return o;
  const verdict = judged(
    set,
    { ...known, CONNECTED: false, RESPONSE_TIME: o.responseTimeMs, ...(ip && { IP: ip }), PACKET_LOSS: 100 },
    o.responseTimeMs,
    o,
  );
  return verdict.ok ? verdict : o;
}

/** Echo requests to the endpoint's host, judged by the loss allowed; `onAddress` learns the address pinged. */
async function echo(
  e: ProbeTarget,
  timeoutMs: number,
  deps: ProbeDeps,
  parent: AbortSignal,
  onAddress?: (address: string) => void,
): Promise<ProbeOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const { count, maxLoss } = settingsOf(e);
  const { signal, timedOut, done } = deadline(parent, timeoutMs);
  try {
    const addr = await raceSignal(deps.resolver.resolve(hostOf(e)), signal);
    onAddress?.(addr.address);
    // -n: no reverse look-ups; -w: ping's own deadline, inside the probe's (whose timer kills it).
    const waitS = Math.max(1, Math.floor(timeoutMs / 1000) - 1);
    const args = [`-${addr.family}`, '-n', '-q', '-c', String(count), '-i', String(INTERVAL_S), '-w', String(waitS)];
    const { stdout, stderr } = await runPing([...args, addr.address], signal);
    const summary = parsePingSummary(stdout);
    if (!summary) {
      const said = (stderr || stdout).trim().split('\n')[0] ?? '';
      return failure('error', `ping: ${said.replace(/^ping: /, '') || 'no summary'}`, elapsed());
    }
    const detail = { icmp: summary };
    const { packets_sent: sent, packets_received: received, loss_percent: loss } = summary;
    const rtt = summary.rtt_avg_ms === null ? elapsed() : Math.round(summary.rtt_avg_ms);
    if (received === 0)
      return { ...failure('timeout', `no echo reply from ${addr.address} (${sent} sent)`, elapsed()), detail };
    // More than the share allowed, compared exactly (1 of 3 lost is more than 33 %).
    if ((sent - received) * 100 > maxLoss * sent)
      return {
        ...failure(
          'loss',
          `${sent - received} of ${sent} echo requests unanswered (${loss} % lost, at most ${maxLoss} % allowed)`,
          rtt,
        ),
        detail,
      };
    return { ...passed(rtt), detail };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      return failure('error', 'the system ping program is not installed (Debian: iputils-ping)', elapsed());
    return failedWith(err, parent, timedOut, { timeoutMs, noAnswer: 'no echo reply', elapsedMs: elapsed() });
  } finally {
    done();
  }
}

declare module '../domain/endpoint.js' {
  interface EndpointTypeNames {
    icmp: true;
  }
}

/** `icmp`: echo requests (ping); the round trip is the mean of the replies, the loss is bounded by a field. */
export const icmp: EndpointPlugin<'icmp'> = {
  name: 'icmp',
  defaultPort: null,
  url: 'name',
  certificate: 'never',
  extension: true,
  fields: FIELDS,
  docs: {
    liveness:
      'echo replies come back, no more than `max_loss_percent` of `count` requests lost, or every condition on `[CONNECTED]`, `[RESPONSE_TIME]`, `[IP]`, `[PACKET_LOSS]`, `[DOMAIN_EXPIRATION]` holds ([conditions](conditions.md)); the response time is their mean round trip',
    certificate: 'none',
  },
  placeholders: ICMP_PLACEHOLDERS,
  upSummary: (o) => {
    const s = o.detail?.icmp;
    const replies = s ? `${s.packets_received} of ${s.packets_sent} replies, ` : '';
    return `ICMP echo: ${replies}mean round trip ${o.responseTimeMs} ms`;
  },
  liveness: (e, c, deps, signal) => probeIcmp(e, c.timeout_seconds * 1000, deps, signal, c),
};
