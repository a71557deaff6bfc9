// A real WHOIS server (TCP, RFC 3912) on 127.0.0.1 answering registry-style text per query.
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export function verisignText(
  name: string,
  d: { registrar: string; expiry: string; created?: string; nameservers: string[]; status?: string[]; dnssec?: string },
): string {
  return [
    `   Domain Name: ${name.toUpperCase()}`,
    '   Registry Domain ID: 123456_DOMAIN_COM-VRSN',
    '   Registrar WHOIS Server: whois.example-registrar.test',
    '   Registrar URL: http://www.example-registrar.test',
    '   Updated Date: 2024-08-14T07:01:34Z',
    `   Creation Date: ${d.created ?? '1995-08-14T04:00:00Z'}`,
    `   Registry Expiry Date: ${d.expiry}`,
    `   Registrar: ${d.registrar}`,
    '   Registrar IANA ID: 376',
    ...(d.status ?? ['clientTransferProhibited']).map((s) => `   Domain Status: ${s} https://icann.org/epp#${s}`),
    ...d.nameservers.map((n) => `   Name Server: ${n.toUpperCase()}`),
    `   DNSSEC: ${d.dnssec ?? 'unsigned'}`,
    '   URL of the ICANN Whois Inaccuracy Complaint Form: https://www.icann.org/wicf/',
    '>>> Last update of whois database: 2025-01-01T00:00:00Z <<<',
    '',
    "NOTICE: The expiration date displayed in this record is the date the registrar's sponsorship of the domain name registration in the registry is currently set to expire.",
    '',
  ].join('\r\n');
}

export function nominetText(name: string, d: { registrar: string; expiry: string; nameservers: string[] }): string {
  return `
    Domain name:
        ${name}

    Data validation:
        Nominet was able to match the registrant's name and address against a 3rd party data source on 10-Dec-2012

    Registrar:
        ${d.registrar} [Tag = EXAMPLE]
        URL: https://www.example-registrar.test

    Relevant dates:
        Registered on: 26-Nov-1996
        Expiry date:  ${d.expiry}
        Last updated:  14-Oct-2024

    Registration status:
        Registered until expiry date.

    Name servers:
${d.nameservers.map((n) => `        ${n}`).join('\n')}

    WHOIS lookup made at 10:00:00 01-Jan-2025

-- 
This WHOIS information is provided for free by Nominet UK the central registry
for .uk domain names.
`;
}

export function denicText(name: string, d: { nameservers: string[]; changed?: string }): string {
  return [
    '% Restricted rights.',
    '%',
    '% Terms and Conditions of Use',
    '',
    `Domain: ${name}`,
    ...d.nameservers.map((n) => `Nserver: ${n}`),
    'Status: connect',
    `Changed: ${d.changed ?? '2018-03-12T21:44:25+01:00'}`,
    '',
  ].join('\n');
}

export const RATE_LIMIT_TEXT = 'WHOIS LIMIT EXCEEDED - SEE WWW.PIR.ORG/WHOIS FOR DETAILS\r\n';
export const DENIC_FREE = (name: string) => `Domain: ${name}\nStatus: free\n`;
export const VERISIGN_NO_MATCH = (name: string) =>
  `No match for "${name.toUpperCase()}".\r\n>>> Last update of whois database: 2025-01-01T00:00:00Z <<<\r\n`;

export interface WhoisServer {
  /** `127.0.0.1:PORT`, ready for DOMMON_WHOIS_SERVER. */
  address: string;
  /** Query text (trimmed, DENIC's "-T dn " prefix and JPRS's "/e" suffix removed) -> answer. Unknown queries get a Verisign "No match". */
  answers: Record<string, string>;
  queries: string[];
  close(): Promise<void>;
}

export async function startWhoisServer(answers: Record<string, string> = {}): Promise<WhoisServer> {
  const queries: string[] = [];
  const state: WhoisServer = { address: '', answers, queries, close: async () => undefined };
  const server = net.createServer((socket) => {
    let buf = '';
    socket.on('data', (chunk) => {
      buf += chunk.toString();
      if (!buf.includes('\n')) return;
      const raw = buf.trim();
      queries.push(raw);
      // DENIC's "-T dn <name>" and JPRS's "<name>/e" query forms answer by the name.
      const name = raw
        .replace(/^-T dn\s+/, '')
        .replace(/\/e$/, '')
        .toLowerCase();
      socket.end(state.answers[name] ?? VERISIGN_NO_MATCH(name));
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}
