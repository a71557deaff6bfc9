// A real RDAP server (RFC 9083 JSON over HTTP) on 127.0.0.1: `{base}/domain/{name}`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface RdapDomainSpec {
  registrar?: string;
  expiry?: string;
  created?: string;
  changed?: string;
  nameservers?: string[];
  status?: string[];
  signed?: boolean;
}

/** An RFC 9083 domain object. */
export function rdapDomain(name: string, d: RdapDomainSpec) {
  const events = [
    d.created && { eventAction: 'registration', eventDate: d.created },
    d.expiry && { eventAction: 'expiration', eventDate: d.expiry },
    d.changed && { eventAction: 'last changed', eventDate: d.changed },
    { eventAction: 'last update of RDAP database', eventDate: '2025-01-01T00:00:00Z' },
  ].filter(Boolean);
  return {
    objectClassName: 'domain',
    rdapConformance: ['rdap_level_0', 'icann_rdap_response_profile_0'],
    handle: `${name.toUpperCase()}-TEST`,
    ldhName: name.toUpperCase(),
    status: d.status ?? ['client transfer prohibited'],
    events,
    entities: d.registrar
      ? [
          {
            objectClassName: 'entity',
            handle: '9999',
            roles: ['registrar'],
            publicIds: [{ type: 'IANA Registrar ID', identifier: '9999' }],
            vcardArray: [
              'vcard',
              [
                ['version', {}, 'text', '4.0'],
                ['fn', {}, 'text', d.registrar],
              ],
            ],
            entities: [
              {
                objectClassName: 'entity',
                roles: ['abuse'],
                vcardArray: [
                  'vcard',
                  [
                    ['version', {}, 'text', '4.0'],
                    ['fn', {}, 'text', 'Abuse Desk'],
                  ],
                ],
              },
            ],
          },
        ]
      : [],
    nameservers: (d.nameservers ?? []).map((n) => ({ objectClassName: 'nameserver', ldhName: n.toUpperCase() })),
    secureDNS: { delegationSigned: d.signed ?? false },
  };
}

type RdapAnswer = { status: number; body?: unknown; headers?: Record<string, string> };

interface RdapServer {
  url: string;
  /** name -> domain object (200) or an explicit answer. Unknown names answer 404. */
  domains: Record<string, object | RdapAnswer>;
  requests: string[];
  close(): Promise<void>;
}

export async function startRdapServer(domains: Record<string, object | RdapAnswer> = {}): Promise<RdapServer> {
  const requests: string[] = [];
  const state: RdapServer = { url: '', domains, requests, close: async () => undefined };
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    const m = /\/domain\/([^/?]+)$/.exec(req.url ?? '');
    const name = m ? decodeURIComponent(m[1]!).toLowerCase() : '';
    const entry = state.domains[name];
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/rdap+json', ...headers });
      res.end(body === undefined ? '' : JSON.stringify(body));
    };
    if (!entry) return send(404, { errorCode: 404, title: 'Not Found', description: [`${name} not found`] });
    if ('status' in entry && typeof (entry as RdapAnswer).status === 'number' && !('objectClassName' in entry)) {
      const a = entry as RdapAnswer;
      return send(a.status, a.body ?? { errorCode: a.status }, a.headers);
    }
    send(200, entry);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
