// Test certificates made on the fly with the openssl CLI and EC P-256 keys (fast): a test CA, leaves
// it signs with any validity window (also already expired), and self-signed leaves.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TestCa {
  cert: string;
  key: string;
  dir: string;
}

export interface TestCert {
  cert: string;
  key: string;
}

const DAY = 86_400_000;

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** openssl's YYYYMMDDHHMMSSZ. */
function stamp(d: Date): string {
  return d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z';
}

function workDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dommon-certs-'));
  fs.writeFileSync(path.join(dir, 'index.txt'), '');
  fs.writeFileSync(
    path.join(dir, 'ca.cnf'),
    [
      '[ca]',
      'default_ca = d',
      '[d]',
      `database = ${dir}/index.txt`,
      `new_certs_dir = ${dir}`,
      'rand_serial = yes',
      'default_md = sha256',
      'policy = p',
      'unique_subject = no',
      'email_in_dn = no',
      '[p]',
      'commonName = supplied',
      '[any]',
      'commonName = optional',
      'organizationName = optional',
      '[req]',
      'distinguished_name = dn',
      '[dn]',
    ].join('\n'),
  );
  return dir;
}

/** The CA made in `dir` (ca.crt, ca.key). */
function caIn(dir: string): TestCa {
  return {
    cert: fs.readFileSync(path.join(dir, 'ca.crt'), 'utf8'),
    key: fs.readFileSync(path.join(dir, 'ca.key'), 'utf8'),
    dir,
  };
}

/** A root CA (EC P-256, or RSA of `o.rsaBits`: needed to sign with MD5, which ECDSA has no form for). */
export function makeCa(name = 'dommon Test CA', o: { rsaBits?: number } = {}): TestCa {
  const dir = workDir();
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      ...(o.rsaBits ? [`rsa:${o.rsaBits}`] : ['ec', '-pkeyopt', 'ec_paramgen_curve:P-256']),
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-subj',
      `/CN=${name}`,
      '-days',
      '3650',
      '-config',
      'ca.cnf',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  return caIn(dir);
}

interface IntermediateOptions {
  /** Validity relative to now, in days (negative = past); omitted: 5 years from now. */
  fromDays?: number;
  toDays?: number;
  /** Signature digest of the root's signature on it (default sha256). */
  md?: string;
}

/** An intermediate CA signed by `root` (its own directory): leaves it issues chain up through it. */
export function makeIntermediate(root: TestCa, name = 'dommon Test Intermediate', o: IntermediateOptions = {}): TestCa {
  const dir = workDir();
  openssl(
    [
      'req',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-384',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.csr',
      '-subj',
      `/CN=${name}`,
      '-config',
      'ca.cnf',
    ],
    dir,
  );
  fs.writeFileSync(
    path.join(dir, 'ca.ext'),
    'basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n',
  );
  const now = Date.now();
  // Signed in the root's directory (its openssl ca database), with the dates asked for.
  fs.copyFileSync(path.join(dir, 'ca.csr'), path.join(root.dir, `${path.basename(dir)}.csr`));
  fs.copyFileSync(path.join(dir, 'ca.ext'), path.join(root.dir, `${path.basename(dir)}.ext`));
  openssl(
    [
      'ca',
      '-batch',
      '-config',
      'ca.cnf',
      '-cert',
      'ca.crt',
      '-keyfile',
      'ca.key',
      '-md',
      o.md ?? 'sha256',
      '-in',
      `${path.basename(dir)}.csr`,
      '-out',
      path.join(dir, 'ca.crt'),
      '-notext',
      '-startdate',
      stamp(new Date(now + (o.fromDays ?? -1) * DAY)),
      '-enddate',
      stamp(new Date(now + (o.toDays ?? 1825) * DAY)),
      '-extfile',
      `${path.basename(dir)}.ext`,
    ],
    root.dir,
  );
  return caIn(dir);
}

interface IssueOptions {
  /** Signing CA; omitted: self-signed. */
  ca?: TestCa;
  cn: string;
  /** The whole subject in openssl's form (`/O=x`, `/` for an empty one) instead of `/CN=<cn>`. */
  subject?: string;
  /** Subject alternative names (default: [cn]); null: no subjectAltName extension at all. */
  sans?: string[] | null;
  /** Signature digest (default sha256; sha1 and md5 for the weak-signature cases). */
  md?: string;
  /** More extension lines (openssl's extension syntax), e.g. a very large one. */
  extensions?: string[];
  /** Validity relative to now, in days (negative = past). */
  fromDays?: number;
  toDays: number;
  now?: Date;
  /** An RSA key of this many bits instead of EC P-256. */
  rsaBits?: number;
}

export function issue(o: IssueOptions): TestCert {
  const dir = o.ca?.dir ?? workDir();
  const id = Math.random().toString(36).slice(2);
  const now = o.now ?? new Date();
  const sans = o.sans === undefined ? [o.cn] : o.sans;
  fs.writeFileSync(
    path.join(dir, `${id}.ext`),
    [
      ...(sans ? [`subjectAltName=${sans.map((s) => (/^[\d.]+$|:/.test(s) ? `IP:${s}` : `DNS:${s}`)).join(',')}`] : []),
      'basicConstraints=CA:FALSE',
      'extendedKeyUsage=serverAuth',
      ...(o.extensions ?? []),
      '',
    ].join('\n'),
  );
  openssl(
    [
      'req',
      '-new',
      '-newkey',
      ...(o.rsaBits ? [`rsa:${o.rsaBits}`] : ['ec', '-pkeyopt', 'ec_paramgen_curve:P-256']),
      '-nodes',
      '-keyout',
      `${id}.key`,
      '-out',
      `${id}.csr`,
      '-subj',
      o.subject ?? `/CN=${o.cn}`,
      '-config',
      'ca.cnf',
    ],
    dir,
  );
  const signer = o.ca ? ['-cert', 'ca.crt', '-keyfile', 'ca.key'] : ['-selfsign', '-keyfile', `${id}.key`];
  openssl(
    [
      'ca',
      '-batch',
      '-config',
      'ca.cnf',
      ...signer,
      ...(o.subject !== undefined ? ['-policy', 'any', '-preserveDN'] : []),
      '-md',
      o.md ?? 'sha256',
      '-in',
      `${id}.csr`,
      '-out',
      `${id}.crt`,
      '-notext',
      '-startdate',
      stamp(new Date(now.getTime() + (o.fromDays ?? -1) * DAY)),
      '-enddate',
      stamp(new Date(now.getTime() + o.toDays * DAY)),
      '-extfile',
      `${id}.ext`,
    ],
    dir,
  );
  return {
    cert: fs.readFileSync(path.join(dir, `${id}.crt`), 'utf8'),
    key: fs.readFileSync(path.join(dir, `${id}.key`), 'utf8'),
  };
}
