// dns liveness: one question (a record type, for the endpoint's host) asked of a chosen server, or
// of the zone's own name servers (the domain's NS, each resolved and asked without recursion; a name
// in a delegated sub-zone is followed through the referral to the sub-zone's servers; a DS question
// goes to the parent zone's servers, where DS records live). A truncated answer is asked again over
// TCP. Without conditions, up when
// the answer is NOERROR and holds records of the type; with conditions (on [DNS_RCODE], [BODY] and
// [RESPONSE_TIME]), they alone decide. Every server's address is chosen through the guarded resolver, so
// the outbound policy applies; the recursive resolvers that find a zone's servers are the
// configured ones (DOMMON_DNS_SERVERS, else the system's).
import net from 'node:net';
import type packet from 'dns-packet';
import { evaluateConditions, parseConditions, type ConditionSet, type Placeholder } from '../domain/conditions.js';
import { hostOf } from '../domain/endpoint.js';
import type { DnsReply } from './dns.js';
import type { EndpointPlugin, ProbeSettings, ProbeTarget } from './plugin.js';
import { deadline, failedWith, failure, passed, raceSignal, type ProbeDeps, type ProbeOutcome } from './types.js';

const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT', 'SOA', 'CAA', 'DS'] as const;
type RecordType = (typeof RECORD_TYPES)[number];

const FIELDS = {
  record_type: {
    type: 'string',
    enum: RECORD_TYPES,
    default: 'A',
    description: "the record type asked for, of the endpoint's host",
  },
  resolver: {
    type: ['string', 'null'],
    maxLength: 300,
    // host, host:port, [v6] or [v6]:port, or a bare IPv6 address
    pattern: '^(\\[[0-9A-Fa-f:.]+\\](:[0-9]{1,5})?|[0-9A-Za-z.-]+(:[0-9]{1,5})?|[0-9A-Fa-f]*:[0-9A-Fa-f:.]*)$',
    default: null,
    description:
      "the server asked (an address or name, `:port` when not 53), with recursion; null: the zone's own name servers, without",
  },
} as const;

// dns.js carries the packet codec: it loads with the first check, so a command that only reads the
// registry (`dommon --help`, `token list`) does not load it.
const codec = () => import('./dns.js');
const delegation = () => import('./delegation.js');

/** The address:port to send to: a name resolved through the guarded resolver, the policy checked either way. */
async function serverAt(spec: string, deps: ProbeDeps, signal: AbortSignal): Promise<string> {
  const { parseServer } = await codec();
  const { host, port } = parseServer(spec);
  const addr = await raceSignal(deps.resolver.resolve(host), signal);
  return net.isIPv6(addr.address) ? `[${addr.address}]:${port}` : `${addr.address}:${port}`;
}

/** How many sub-zone referrals a question to a zone's own servers follows. */
const MAX_REFERRALS = 4;

/**
 * The question asked of `zone`'s own name servers (its NS, from the recursive resolvers), without
 * recursion: a name in a delegated sub-zone gets a referral, followed to the sub-zone's servers.
 * null: the zone has no NS records.
 */
async function askZone(
  zone: string,
  name: string,
  type: RecordType,
  deps: ProbeDeps,
  opts: { timeoutMs: number; signal: AbortSignal },
): Promise<{ reply: DnsReply; server: string } | null> {
  const { askNameservers, referralOf, zoneNameservers } = await delegation();
  const names = await zoneNameservers(zone, deps, opts);
  if (!names.length) return null;
  let at = zone;
  let asked = await askNameservers(names, name, type as packet.RecordType, deps, { ...opts, anyAnswer: true });
  for (let hops = 0; hops < MAX_REFERRALS; hops++) {
    const referral = referralOf(asked.reply, name, at);
    if (!referral) break;
    at = referral.cut;
    asked = await askNameservers(referral.names, name, type as packet.RecordType, deps, { ...opts, anyAnswer: true });
  }
  return asked;
}

/** The zone whose servers hold a DS record of `zone`: its parent (`com` for example.com). */
const parentOf = (zone: string): string => zone.split('.').slice(1).join('.') || '.';

/** The type's fields of a target (a `dommon check` target has none: the defaults). */
function settingsOf(e: ProbeTarget): { type: RecordType; resolver: string | null } {
  const s = e.settings ?? {};
  return {
    type: (RECORD_TYPES as readonly string[]).includes(s.record_type as string)
      ? (s.record_type as RecordType)
      : FIELDS.record_type.default,
    resolver: typeof s.resolver === 'string' ? s.resolver : null,
  };
}

/** The placeholders a dns check supplies. */
const DNS_PLACEHOLDERS: readonly Placeholder[] = ['DNS_RCODE', 'BODY', 'RESPONSE_TIME'];

/** An answer's data as text: an address or a name as is, MX its exchange, TXT its strings joined. */
function answerText(a: packet.Answer): string {
  const d = (a as { data?: unknown }).data;
  if (typeof d === 'string') return d;
  if (Buffer.isBuffer(d)) return d.toString('utf8');
  if (Array.isArray(d)) return d.map((x) => (Buffer.isBuffer(x) ? x.toString('utf8') : String(x))).join('');
  switch (a.type) {
    case 'MX':
      return a.data.exchange;
    case 'SOA':
      return a.data.mname;
    case 'CAA':
      return `${a.data.flags ?? 0} ${a.data.tag} "${a.data.value}"`;
    case 'DS':
      return `${a.data.keyTag} ${a.data.algorithm} ${a.data.digestType} ${a.data.digest.toString('hex').toUpperCase()}`;
    default:
      return '';
  }
}

/**
 * [BODY] of a dns check, as Gatus reads it: the data of the answer section's last record (after a
 * CNAME on the way, the record it leads to); empty when there is none.
 */
const bodyOf = (answers: readonly packet.Answer[]): string => {
  const last = answers.at(-1);
  return last ? answerText(last) : '';
};

/** The configuration's own conditions, parsed once per configuration object; null when it has none. */
const conditionsOf = new WeakMap<ProbeSettings, ConditionSet | null>();

function conditionSet(c: ProbeSettings | undefined): ConditionSet | null {
  if (!c) return null;
  let set = conditionsOf.get(c);
  if (set === undefined) {
    set = c.conditions?.length ? parseConditions(c.conditions, { placeholders: DNS_PLACEHOLDERS }) : null;
    conditionsOf.set(c, set);
  }
  return set;
}

/** The longest error text a failed condition list leaves in a result. */
const MAX_CONDITION_ERROR = 500;

export async function probeDns(
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
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const { type, resolver } = settingsOf(e);
  const name = hostOf(e);
  const { signal, timedOut, done } = deadline(parent, timeoutMs);
  // One server that does not answer leaves time for the next.
  const perQuery = Math.max(1000, Math.floor(timeoutMs / 2));
  try {
    let asked: { reply: DnsReply; server: string } | null;
    if (resolver) {
      const server = await serverAt(resolver, deps, signal);
      const { queryServer } = await codec();
      asked = { reply: await queryServer(server, name, type, { timeoutMs: perQuery, recurse: true, signal }), server };
    } else {
      const zone = type === 'DS' ? parentOf(e.domain) : e.domain;
      asked = await askZone(zone, name, type, deps, { timeoutMs: perQuery, signal });
      if (!asked) return failure('dns', `no NS records for ${zone}: no name server to ask`, elapsed());
    }
    const { reply, server } = asked;
    const rt = elapsed();
    if (conditions) {
      const out = evaluateConditions(conditions, {
        DNS_RCODE: reply.rcode,
        BODY: bodyOf(reply.answers),
        RESPONSE_TIME: rt,
      });
      if (out.ok) return passed(rt);
      let text = out.failures.map((f) => f.seen).join('; ');
      if (text.length > MAX_CONDITION_ERROR) text = `${text.slice(0, MAX_CONDITION_ERROR)}...`;
      return failure('condition', text, rt);
    }
    if (reply.rcode !== 'NOERROR') return failure('dns', `${reply.rcode} from ${server} for ${name} ${type}`, rt);
    if (!reply.answers.some((a) => a.type === type))
      return failure('dns', `no ${type} record for ${name} (NOERROR, no answer from ${server})`, rt);
    return passed(rt);
  } catch (err) {
    return failedWith(err, parent, timedOut, { timeoutMs, noAnswer: 'no DNS answer', elapsedMs: elapsed() });
  } finally {
    done();
  }
}

declare module '../domain/endpoint.js' {
  interface EndpointTypeNames {
    dns: true;
  }
}

/** `dns`: a question of a record type about the endpoint's host, to a chosen server or the zone's own. */
export const dnsType: EndpointPlugin<'dns'> = {
  name: 'dns',
  defaultPort: null,
  url: 'name',
  certificate: 'never',
  extension: true,
  fields: FIELDS,
  docs: {
    liveness:
      'the answer to a `record_type` question is `NOERROR` with records of that type, or every condition on `[DNS_RCODE]`, `[BODY]`, `[RESPONSE_TIME]` holds ([conditions](conditions.md))',
    certificate: 'none',
  },
  placeholders: DNS_PLACEHOLDERS,
  upSummary: (o, e) => `DNS ${settingsOf(e).type} answer for ${hostOf(e)} in ${o.responseTimeMs} ms`,
  liveness: (e, c, deps, signal) => probeDns(e, c.timeout_seconds * 1000, deps, signal, c),
};
