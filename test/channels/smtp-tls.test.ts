// DOMMON_SMTP_TLS against real smtp-server peers on 127.0.0.1: credentials never go in clear text
// or to a certificate that does not verify under `require`; `verify-if-offered` falls back to plain
// only when no STARTTLS is offered; `insecure` takes any certificate.
import t from 'tap';
import { channels, type SendContext } from '../../src/channels/index.js';
import { defaultSmtpTls, loadConfig } from '../../src/config/index.js';
import { issue, makeCa } from '../support/certs.js';
import { startSmtp, type SmtpOptions } from '../support/smtp.js';
import { startNotifyApp, until } from '../notifications/harness.js';
import { urls } from './fixtures.js';

const mail = { to: ['ops@x.test'], subject: 's', text: 't', html: 'h' };
const creds = { user: 'mailer', pass: 'p@ss' };
// A certificate for 127.0.0.1 that nobody trusts: self-signed, and signed by a CA the client does not know.
const selfSigned = issue({ cn: '127.0.0.1', sans: ['127.0.0.1'], toDays: 30 });
const strangerSigned = issue({ ca: makeCa('Stranger CA'), cn: '127.0.0.1', sans: ['127.0.0.1'], toDays: 30 });

async function peer(t: { teardown(fn: () => unknown): void }, opts: SmtpOptions) {
  const smtp = await startSmtp(opts);
  t.teardown(() => smtp.close());
  return smtp;
}

/** One send with the policy loadConfig derives from the URL (and DOMMON_SMTP_TLS when given). */
function send(smtp: { url: string; ca: string }, tls?: string, over: Partial<SendContext> = {}) {
  const config = loadConfig({}, { DOMMON_SMTP_URL: smtp.url, ...(tls ? { DOMMON_SMTP_TLS: tls } : {}) });
  const ctx: SendContext = {
    timeoutMs: 3000,
    smtpUrl: config.smtpUrl,
    smtpFrom: 'dommon@localhost',
    smtpTls: config.smtpTls,
    smtpCa: smtp.ca,
    urls: urls(),
    ...over,
  };
  return channels.email.send(mail, ctx);
}

t.test('default policy: require with credentials in the URL, else verify-if-offered', async (t) => {
  t.equal(defaultSmtpTls('smtp://u:p@mail.example:587'), 'require');
  t.equal(defaultSmtpTls('smtps://u:p@mail.example'), 'require');
  t.equal(defaultSmtpTls('smtp://apikey@mail.example'), 'require', 'a user name alone is a credential');
  t.equal(defaultSmtpTls('smtp://:secret@mail.example'), 'require', 'a password alone too');
  t.equal(defaultSmtpTls('smtp://mail.example:25'), 'verify-if-offered');
  t.equal(defaultSmtpTls(null), 'verify-if-offered');
  t.equal(loadConfig({}, { DOMMON_SMTP_URL: 'smtp://u:p@127.0.0.1:2525' }).smtpTls, 'require');
  t.equal(loadConfig({}, { DOMMON_SMTP_URL: 'smtp://127.0.0.1:2525' }).smtpTls, 'verify-if-offered');
  t.equal(
    loadConfig({}, { DOMMON_SMTP_URL: 'smtp://u:p@127.0.0.1:2525', DOMMON_SMTP_TLS: 'Insecure' }).smtpTls,
    'insecure',
    'an explicit value wins, any case',
  );
});

t.test('require + credentials, server without STARTTLS: fails permanently, AUTH never sent', async (t) => {
  const smtp = await peer(t, { ...creds, tls: 'none' });
  const out = await send(smtp);
  t.equal(out.ok, false);
  t.equal(out.transient, false, 'a configuration mismatch is not retried');
  t.match(out.error, /^SMTP server offers no STARTTLS and DOMMON_SMTP_TLS=require \(it answered: 5\d\d /);
  t.same(smtp.authAttempts, [], 'the server never saw AUTH');
  t.same(smtp.mails, []);
});

t.test('require + STARTTLS with a certificate from a trusted CA: delivered over TLS', async (t) => {
  const smtp = await peer(t, creds);
  const out = await send(smtp);
  t.equal(out.ok, true, out.error ?? '');
  const [got] = await smtp.waitFor(1);
  t.equal(got!.secure, true, 'the session was TLS at MAIL FROM and DATA');
  t.equal(got!.auth, 'mailer');
  t.same(smtp.authAttempts, ['mailer']);
});

t.test('require + smtps:// (implicit TLS) with a trusted certificate: delivered over TLS', async (t) => {
  const smtp = await peer(t, { ...creds, tls: 'implicit' });
  t.match(smtp.url, /^smtps:\/\//);
  const out = await send(smtp);
  t.equal(out.ok, true, out.error ?? '');
  t.equal((await smtp.waitFor(1))[0]!.secure, true);
});

t.test('require + a certificate that does not verify: fails permanently, AUTH never sent', async (t) => {
  const cases: [string, SmtpOptions, RegExp][] = [
    ['self-signed', { ...creds, cert: selfSigned }, /DEPTH_ZERO_SELF_SIGNED_CERT/],
    [
      'signed by an unknown CA',
      { ...creds, cert: strangerSigned },
      /UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT/,
    ],
    ['implicit TLS, self-signed', { ...creds, tls: 'implicit', cert: selfSigned }, /DEPTH_ZERO_SELF_SIGNED_CERT/],
  ];
  for (const [name, opts, code] of cases) {
    const smtp = await peer(t, opts);
    const out = await send(smtp);
    t.equal(out.ok, false, name);
    t.equal(out.transient, false, `${name}: not retried`);
    t.match(out.error, /^SMTP certificate verification failed \(DOMMON_SMTP_TLS=require\): /, name);
    t.match(out.error, code, `${name}: ${out.error}`);
    t.same(smtp.authAttempts, [], `${name}: no AUTH`);
    t.same(smtp.mails, []);
  }
  // The name check is on its own: a certificate from the trusted CA, but for another host.
  const ca = makeCa('Trusted CA');
  const smtp = await peer(t, { ...creds, cert: issue({ ca, cn: 'mail.other.test', toDays: 30 }) });
  const out = await send({ url: smtp.url, ca: ca.cert });
  t.match(out.error, /certificate verification failed.*ERR_TLS_CERT_ALTNAME_INVALID/);
  t.same(smtp.authAttempts, []);
});

t.test(
  'verify-if-offered: plain when no STARTTLS is offered; a bad certificate when offered still fails',
  async (t) => {
    const plain = await peer(t, { tls: 'none' });
    t.equal((await send(plain)).ok, true, 'no credentials: the default is verify-if-offered');
    t.equal((await plain.waitFor(1))[0]!.secure, false, 'delivered in clear text');

    const offered = await peer(t, {});
    t.equal((await send(offered)).ok, true);
    t.equal((await offered.waitFor(1))[0]!.secure, true, 'STARTTLS used when offered');

    const forged = await peer(t, { cert: selfSigned });
    const out = await send(forged);
    t.equal(out.ok, false, 'no fall-back to clear text');
    t.match(
      out.error,
      /certificate verification failed \(DOMMON_SMTP_TLS=verify-if-offered\).*DEPTH_ZERO_SELF_SIGNED_CERT/,
    );
    t.same(forged.mails, []);
  },
);

t.test('insecure: a self-signed STARTTLS certificate is accepted', async (t) => {
  const smtp = await peer(t, { ...creds, cert: selfSigned });
  const out = await send(smtp, 'insecure');
  t.equal(out.ok, true, out.error ?? '');
  const [got] = await smtp.waitFor(1);
  t.equal(got!.secure, true);
  t.equal(got!.auth, 'mailer');
});

t.test('the delivery log of a test send says why TLS failed', async (t) => {
  const smtp = await peer(t, { ...creds, tls: 'none' });
  const s = await startNotifyApp({ env: { DOMMON_SMTP_URL: smtp.url }, smtp: { ca: smtp.ca } });
  t.teardown(() => s.close());
  const m = await s.team('tls');
  const r = await m.api.post('/api/v1/notifications/test', { channel: 'email', recipient: 'ops@tls.test' });
  t.equal(r.status, 201);
  const entry = await until(
    async () => {
      const e = await m.api.get(`/api/v1/notifications/log/${r.body.id}`);
      return e.status === 200 && e.body.status === 'failed' ? e.body : null;
    },
    8000,
    'failed delivery',
  );
  t.match(entry.error_message, /SMTP server offers no STARTTLS and DOMMON_SMTP_TLS=require/);
  t.notMatch(entry.error_message, /p@ss|p%40ss/, 'no password in the log');
  t.same(smtp.authAttempts, []);
});
