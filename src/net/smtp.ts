// DOMMON_SMTP_URL under the DOMMON_SMTP_TLS policy as nodemailer options, and SMTP failures in words:
// shared by the e-mail channel and `dommon doctor`, so both connect the same way.
import tls from 'node:tls';
import type { SMTPTransportOptions } from 'nodemailer';
import type { SmtpTlsPolicy } from '../config/index.js';

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * `smtps://` is implicit TLS, `smtp://` STARTTLS when offered (required under `require`). The
 * certificate is verified unless the policy is `insecure`. `ca` adds trusted roots (tests pass their
 * own CA). The URL's query string is not read: the policy alone decides.
 */
export function smtpTransportOptions(
  smtpUrl: string,
  policy: SmtpTlsPolicy,
  opts: { timeoutMs: number; ca?: string | string[] },
): SMTPTransportOptions {
  const u = new URL(smtpUrl);
  const secure = u.protocol === 'smtps:';
  const user = decode(u.username);
  const pass = decode(u.password);
  return {
    host: u.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(u.port) || (secure ? 465 : 587),
    secure,
    requireTLS: policy === 'require' && !secure,
    ...(user || pass ? { auth: { user, pass } } : {}),
    connectionTimeout: opts.timeoutMs,
    greetingTimeout: opts.timeoutMs,
    socketTimeout: opts.timeoutMs,
    tls: {
      rejectUnauthorized: policy !== 'insecure',
      ...(opts.ca ? { ca: [...tls.rootCertificates, ...[opts.ca].flat()] } : {}),
    },
  };
}

/** Node's codes for a certificate that did not verify (chain, validity, name). */
const CERT_CODES =
  /^(CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|HOSTNAME_MISMATCH|ERR_TLS_CERT_ALTNAME_INVALID|INVALID_CA|INVALID_PURPOSE|PATH_LENGTH_EXCEEDED)/;

type SmtpError = Error & {
  code?: string;
  originalCode?: string;
  responseCode?: number;
  command?: string;
  response?: string;
};

/**
 * A failed SMTP session: the reply code, whether a retry may help, and a one-line reason. A refused
 * STARTTLS under `require` and a certificate that does not verify name DOMMON_SMTP_TLS and are
 * permanent (unless the server says 4xx); other 5xx replies are permanent; 4xx, timeouts and
 * connection errors transient.
 */
export function smtpFailure(
  err: unknown,
  policy: SmtpTlsPolicy,
): { status: number | null; transient: boolean; error: string } {
  const e = err as SmtpError;
  const status = e.responseCode ?? null;
  const message = String(e.message ?? err);
  if (policy === 'require' && e.code === 'ETLS' && e.command === 'STARTTLS' && status !== null) {
    return {
      status,
      transient: status < 500,
      error: `SMTP server offers no STARTTLS and DOMMON_SMTP_TLS=require (it answered: ${(e.response ?? '').trim()})`,
    };
  }
  const tlsCode = e.originalCode ?? e.code ?? '';
  if (CERT_CODES.test(tlsCode)) {
    return {
      status: null,
      transient: false,
      error: `SMTP certificate verification failed (DOMMON_SMTP_TLS=${policy}): ${message} [${tlsCode}]`,
    };
  }
  return {
    status,
    transient: status === null || status < 500,
    error: `SMTP ${e.code ?? 'error'}${status ? ` ${status}` : ''}: ${message}`,
  };
}
