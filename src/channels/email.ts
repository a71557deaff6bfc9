// E-mail through nodemailer over DOMMON_SMTP_URL (secured as DOMMON_SMTP_TLS says): plain text and HTML, subject from the event.
import type { Outgoing, SendOutcome } from '../domain/notification.js';
import { EMAIL_PATTERN } from '../domain/email.js';
import { smtpFailure, smtpTransportOptions } from '../net/smtp.js';
import { escapeHtml } from '../domain/html.js';
import { digestLine, digestTitle, eventFacts, headline, portfolioName, truncate } from './format.js';
import { AttemptAborted, type ChannelPlugin, type SendContext } from './types.js';

interface EmailMessage {
  to: string[];
  subject: string;
  text: string;
  html: string;
}

const wrap = (title: string, inner: string) =>
  `<!doctype html><html><body style="font-family:sans-serif"><h2>${escapeHtml(title)}</h2>${inner}<p style="color:#888;font-size:12px">Sent by dommon</p></body></html>`;

/** Without recipients in its config, a row mails its own user (the message's `user`). */
function emailMessage(m: Outgoing, config: Record<string, unknown>): EmailMessage {
  const listed = Array.isArray(config.recipients)
    ? config.recipients.filter((r): r is string => typeof r === 'string' && r !== '')
    : [];
  const to = listed.length ? listed : m.user ? [m.user] : [];
  if (m.kind === 'digest') {
    const title = digestTitle(m);
    const text = [
      title,
      `${m.from} to ${m.to}`,
      '',
      ...m.groups.flatMap((g) => [
        `${portfolioName(g.portfolio)}:`,
        ...g.items.map((it) => `  - ${digestLine(it)}`),
        '',
      ]),
    ].join('\n');
    const html = wrap(
      title,
      `<p>${escapeHtml(m.from)} to ${escapeHtml(m.to)}</p>` +
        m.groups
          .map(
            (g) =>
              `<h3>${escapeHtml(portfolioName(g.portfolio))}</h3><ul>${g.items.map((it) => `<li>${escapeHtml(digestLine(it))}</li>`).join('')}</ul>`,
          )
          .join(''),
    );
    return { to, subject: truncate(title, 200), text, html };
  }
  const title = headline(m);
  const facts = eventFacts(m, { team: true, time: true });
  const text = [title, '', m.message, '', ...facts.map(([k, v]) => `${k}: ${v}`)].join('\n');
  const html = wrap(
    title,
    `<p>${escapeHtml(m.message)}</p><table>${facts.map(([k, v]) => `<tr><th align="left">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('')}</table>`,
  );
  const subject = m.subject ?? `[dommon] ${title}: ${m.message}`;
  return { to, subject: truncate(subject.replace(/[\r\n]+/g, ' '), 200), text, html };
}

async function sendEmail(msg: EmailMessage, ctx: SendContext): Promise<SendOutcome> {
  if (!ctx.smtpUrl)
    return {
      ok: false,
      status: null,
      transient: false,
      error: 'email channel: SMTP is not configured (set DOMMON_SMTP_URL to smtp://user:pass@host:port)',
    };
  if (!msg.to.length) return { ok: false, status: null, transient: false, error: 'email channel: no recipients' };
  // nodemailer loads with the first e-mail sent, not with the channel registry (which every command
  // that reads notification settings loads).
  const { default: nodemailer } = await import('nodemailer');
  const transport = nodemailer.createTransport(
    smtpTransportOptions(ctx.smtpUrl, ctx.smtpTls, { timeoutMs: ctx.timeoutMs, ca: ctx.smtpCa }),
  );
  const onAbort = () => transport.close();
  ctx.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const timer = new Promise<never>((_, reject) => {
      const t = setTimeout(
        () => reject(Object.assign(new Error(`no answer within ${ctx.timeoutMs} ms`), { code: 'ETIMEDOUT' })),
        ctx.timeoutMs,
      );
      t.unref();
    });
    const info = await Promise.race([
      transport.sendMail({ from: ctx.smtpFrom, to: msg.to, subject: msg.subject, text: msg.text, html: msg.html }),
      timer,
    ]);
    const rejected = (info.rejected ?? []).length;
    if (rejected && rejected === msg.to.length)
      return { ok: false, status: null, transient: false, error: `SMTP rejected every recipient: ${info.response}` };
    return { ok: true, status: 250, transient: false, error: null };
  } catch (err) {
    if (ctx.signal?.aborted) throw new AttemptAborted();
    return { ok: false, ...smtpFailure(err, ctx.smtpTls) };
  } finally {
    ctx.signal?.removeEventListener('abort', onAbort);
    transport.close();
  }
}

const ADDRESS = /^[^\s@]+@[^\s@]+\.[^\s@]+$|^[^\s@]+@localhost$/;

export const email: ChannelPlugin<EmailMessage> = {
  title: 'E-mail',
  api: 'SMTP through `DOMMON_SMTP_URL` (secured as `DOMMON_SMTP_TLS` says), text and HTML parts',
  configSchema: {
    title: 'email channel config',
    description: "Without recipients the row's user's own address receives the mail.",
    type: 'object',
    additionalProperties: false,
    properties: {
      recipients: {
        description: "Addresses that receive the mail; without them the row's user.",
        type: 'array',
        minItems: 1,
        maxItems: 50,
        uniqueItems: true,
        items: { type: 'string', pattern: EMAIL_PATTERN, maxLength: 320 },
      },
    },
  },
  example: { recipients: ['ops@example.com', 'oncall@example.com'] },
  notes:
    'Needs `DOMMON_SMTP_URL`. Subject `[dommon] <headline>: <message>`; digests list the items grouped by portfolio.',
  secrets: [],
  destinations: [], // the relay is the operator's (DOMMON_SMTP_URL); a recipient address carries no secret
  recipient: (config, userEmail) =>
    (Array.isArray(config.recipients) ? (config.recipients as string[]).join(', ') : '') || userEmail,
  test: {
    what: 'an e-mail address',
    valid: (s) => ADDRESS.test(s),
    config: (recipient) => ({ recipients: [recipient] }),
  },
  render: (m, { config }) => emailMessage(m, config),
  send: sendEmail,
  preview: (r) => truncate(r.subject, 200),
};
