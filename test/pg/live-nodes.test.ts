// The dashboard's live feed across nodes on one PostgreSQL database: a browser's stream is open on
// one node, a domain is added through the API of another, and the stream is told within seconds (the
// write's notification on the change feed moves the first node's stamp of the tables the home shows),
// and a change to a row already shown is named by its id.
import t from 'tap';
import { client, startApp, type TestApp } from '../support/app.js';
import { freshPgDatabase, PG_SKIP, pgServerUrl } from '../support/pg.js';

t.setTimeout(120_000);
const skip = pgServerUrl() ? false : PG_SKIP;

t.test('a change made on one node reaches a live stream open on another', { skip }, async (t) => {
  const url = (await freshPgDatabase(t, 'livenodes'))!;
  const apps: TestApp[] = [];
  for (const name of ['n1', 'n2']) {
    const s = await startApp({ DOMMON_DATABASE_URL: url, DOMMON_ROLE: 'api', DOMMON_NODE_NAME: name });
    t.teardown(() => s.close());
    apps.push(s);
  }
  const [n1, n2] = apps as [TestApp, TestApp];
  const token = await n1.token('live-nodes', 'a@example.com');
  const signIn = await fetch(`${n2.url}/ui/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  t.equal(signIn.status, 201);
  await signIn.text();
  const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
  const ac = new AbortController();
  t.teardown(() => ac.abort());
  const res = await fetch(`${n2.url}/ui/live`, { headers: { cookie }, signal: ac.signal });
  t.equal(res.status, 200);
  const events: string[] = [];
  const changes: { ids: string[]; all: boolean }[] = [];
  void (async () => {
    const dec = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
        for (const m of dec.decode(chunk, { stream: true }).matchAll(/^event: (\w+)\ndata: (.*)$/gm)) {
          events.push(m[1]!);
          if (m[1] === 'change') changes.push(JSON.parse(m[2]!));
        }
    } catch {
      // aborted at the end
    }
  })();
  const until = async (what: string, ok: () => boolean, ms: number) => {
    const end = Date.now() + ms;
    while (!ok()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await until('ready', () => events.includes('ready'), 10_000);
  await new Promise((r) => setTimeout(r, 600));
  const started = Date.now();
  t.equal((await client(n1.url, token).post('/api/v1/domains', { domain: 'other-node.example' })).status, 201);
  // The change feed's notification moves n2's stamp at once; its 15 s sweep would find it anyway.
  await until('change', () => events.includes('change'), 15_000);
  t.ok(true, `the stream on n2 was told ${Date.now() - started} ms after the write on n1`);

  // A row already shown, changed on n1: n2's stream names it, so the page reads only that row.
  const api1 = client(n1.url, token);
  const domainId = (await api1.get('/api/v1/domains')).body.data[0].id as string;
  const ep = (
    await api1.post('/api/v1/endpoints', {
      domain_id: domainId,
      name: 'www',
      endpoint_type: 'https',
      liveness: { interval_seconds: 60 },
    })
  ).body;
  await until('the endpoint told', () => changes.length >= 2, 15_000);
  await new Promise((r) => setTimeout(r, 600));
  const seen = changes.length;
  t.equal((await api1.put(`/api/v1/liveness/${ep.liveness.id}`, { is_enabled: false })).status, 200);
  await until('the pause named', () => changes.slice(seen).some((c) => c.ids.includes(ep.id)), 15_000);
  t.notOk(changes.slice(seen).find((c) => c.ids.includes(ep.id))!.all, 'named rows, not everything');
});
