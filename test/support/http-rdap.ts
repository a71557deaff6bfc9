// An RDAP server on 127.0.0.1: /domain/{name} from a table (404 otherwise) and /help.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface HttpRdap {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

export async function startHttpRdap(domains: Record<string, unknown> = {}): Promise<HttpRdap> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    const m = /^\/domain\/([^/?]+)/.exec(req.url ?? '');
    const body =
      req.url === '/help'
        ? { rdapConformance: ['rdap_level_0'], notices: [{ title: 'help', description: ['dommon test RDAP server'] }] }
        : m && domains[decodeURIComponent(m[1]!).toLowerCase()];
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/rdap+json' });
    res.end(JSON.stringify(body ?? { errorCode: 404, title: 'not found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
