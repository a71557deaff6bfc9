// The HTTP answer framer of the full check (src/probes/http-response.ts), byte stream in, answer
// out: against http-parser-js (which framed these answers before, and whose rules it keeps) on the
// same bytes split at every point and mutated byte by byte, and on its own for what it does
// differently on purpose (an interim answer never has a body; the head's bound holds for each answer).
import t from 'tap';
import { HTTPParser } from 'http-parser-js';
import { MAX_HEAD_BYTES, READ_ON, ResponseFramer, STOP } from '../../src/probes/http-response.js';

interface Framed {
  status: number | null;
  contentLength: string | undefined;
  location: string | undefined;
  body: string;
  complete: boolean;
  error: string | null;
}

/** The checks' rule on a head: a Content-Length that is not digits ends the answer there. */
const badLength = (v: string | undefined) => v !== undefined && !/^\d+$/.test(v.trim());

class Recorder extends ResponseFramer {
  readonly out: Framed = {
    status: null,
    contentLength: undefined,
    location: undefined,
    body: '',
    complete: false,
    error: null,
  };
  heads = 0;
  constructor(private readonly head: boolean) {
    super();
  }
  protected onHead(): number {
    this.heads++;
    Object.assign(this.out, { status: this.status, contentLength: this.contentLength, location: this.location });
    if (badLength(this.contentLength)) {
      this.out.error = 'HPE_INVALID_CONTENT_LENGTH';
      this.stop();
      return STOP;
    }
    return this.head ? STOP : READ_ON;
  }
  protected onBody(chunk: Buffer, from: number, to: number): void {
    this.out.body += chunk.toString('latin1', from, to);
  }
  protected onComplete(): void {
    this.out.complete = true;
  }
}

/** The framer over reads; `closed`: the peer ends the connection after the last one. */
function frame(reads: Buffer[], head = false, closed = true): Framed {
  const r = new Recorder(head);
  for (const read of reads) {
    if (r.out.complete || r.out.error) break;
    const err = r.execute(read) as (Error & { code?: string }) | null;
    if (err) r.out.error = `${err.code} ${err.message}`;
  }
  if (closed && !r.out.complete && !r.out.error) r.finish();
  return r.out;
}

/** http-parser-js on the same reads, driven as the probe drove it before (src/probes/http-request.ts). */
function reference(reads: Buffer[], head = false, closed = true): Framed {
  const out: Framed = {
    status: null,
    contentLength: undefined,
    location: undefined,
    body: '',
    complete: false,
    error: null,
  };
  const first = (list: string[], name: string) => {
    for (let i = 0; i < list.length; i += 2) if (list[i].toLowerCase() === name) return list[i + 1];
    return undefined;
  };
  const parser = new HTTPParser(HTTPParser.RESPONSE);
  parser.maxHeaderSize = MAX_HEAD_BYTES;
  let final = false;
  let stopped = false;
  parser[HTTPParser.kOnHeadersComplete] = (info) => {
    if (info.statusCode >= 100 && info.statusCode < 200 && info.statusCode !== 101) return 0;
    final = true;
    const contentLength = first(info.headers, 'content-length');
    Object.assign(out, { status: info.statusCode, contentLength, location: first(info.headers, 'location') });
    if (badLength(contentLength)) {
      out.error = 'HPE_INVALID_CONTENT_LENGTH';
      stopped = true;
      return 2;
    }
    return head ? 2 : 0;
  };
  parser[HTTPParser.kOnBody] = (chunk, offset, length) => {
    if (final && !stopped) out.body += chunk.toString('latin1', offset, offset + length);
  };
  parser[HTTPParser.kOnMessageComplete] = () => {
    if (final && !stopped) {
      out.complete = true;
      stopped = true;
    }
  };
  for (const read of reads) {
    if (stopped) break;
    let res: number | Error;
    try {
      res = parser.execute(read);
    } catch (err) {
      res = err as Error;
    }
    if (res instanceof Error && !stopped) {
      const e = res as Error & { code?: string };
      // As the probe reported http-parser-js's errors: node:http's codes and words.
      out.error =
        e.message === 'max header size exceeded'
          ? 'HPE_HEADER_OVERFLOW Parse Error: Header overflow'
          : e.code
            ? `${e.code} Parse Error: ${e.message.replace(/^Parse Error:?\s*/, '') || 'not an HTTP response'}`
            : `HPE_INVALID Parse Error: ${e.message}`;
      stopped = true;
    }
  }
  if (closed && !stopped) parser.finish();
  return out;
}

const b = (s: string) => Buffer.from(s, 'latin1');

/** Answers with the framings and the oddities http-parser-js reads in its own way. */
const ANSWERS = [
  'HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello',
  'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nCONTENT-LENGTH: 5\r\n\r\nhelloEXTRA',
  'HTTP/1.1 200 OK\r\ncontent-length: 5\r\ncontent-length: 6\r\n\r\nhello!',
  'HTTP/1.1 200 OK\r\ncontent-length:   7 \t\r\n\r\nhello!!',
  'HTTP/1.1 200 OK\r\ncontent-length: 1x\r\n\r\nok',
  'HTTP/1.1 200 OK\r\ncontent-length: \r\n\r\n',
  'HTTP/1.0 404 Not Found\nContent-Length: 3\n\nabc',
  '\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok',
  'HTTP/1.1 204 No Content\r\n\r\n',
  'HTTP/1.1 304 Not Modified\r\ncontent-length: 4\r\n\r\nbody',
  'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nx-trailer: yes\r\n\r\n',
  'HTTP/1.1 200 OK\r\nTransfer-Encoding: CHUNKED\r\ncontent-length: 3\r\n\r\n3\r\nabc\r\n0\r\n\r\n',
  'HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, chunked\r\n\r\nto the close',
  'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ntransfer-encoding: identity\r\n\r\nto the close',
  'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nA\r\n0123456789\r\nzz\r\n\r\n',
  'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n',
  'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nbad\rtrailer: x\r\n\r\n',
  'HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nread to the close',
  'HTTP/1.1 302 Found\r\nlocation: /next\r\nLocation: /other\r\ncontent-length: 0\r\n\r\n',
  'HTTP/1.1 301 Moved\r\nlocation:\r\n  /folded\r\n\tmore \r\ncontent-length: 0\r\n\r\n',
  'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n  0\r\n\r\n12345678901234567890',
  'HTTP/1.1 200 OK\r\nx-a: 1\r\n  folded into x-a\r\ncontent-length: 2\r\n\r\nok',
  'HTTP/1.1 200 OK\r\nno colon here\r\nbad name: x\r\n: empty name\r\ncontent-length: 2\r\n\r\nok',
  'HTTP/1.1 200 OK\r\nx-cr: a\rb\r\ncontent-length: 2\r\n\r\nok',
  'HTTP/1.1 200\r\ncontent-length: 2\r\n\r\nok',
  'HTTP/1.1 2000 OK\r\ncontent-length: 2\r\n\r\nok',
  'HTTP/1.1 20 OK\r\n\r\n',
  'HTTP/2 200 OK\r\n\r\n',
  'SSH-2.0-OpenSSH_9.6\r\n',
  'HTTP/1.1 200 O\rK\r\ncontent-length: 2\r\n\r\nok',
  'HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n\r\nframes',
  'HTTP/1.1 101 Switching Protocols\r\nconnection: keep-alive\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n',
  'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok',
  'HTTP/1.1 103 Early Hints\r\nlink: </a.css>\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 No\r\n\r\nto the close',
  'HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\ncut',
  'HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx-high: caf\xe9 \xba \x8a\r\n\r\nok',
  'HTTP/1.1 302 Found\r\nlocation: /caf\xe9\x8anext  \r\ncontent-\xecength: 2\r\n\r\nok',
  'HTTP/1.1 200 OK\r\ncontent-length\xba 2\r\n\r\nok',
  '\xc8TTP/1.1 200 OK\r\n\r\nbody',
  'HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n',
];

t.test('every answer, split at every point, framed as http-parser-js frames it', async (t) => {
  for (const text of ANSWERS) {
    const bytes = b(text);
    const whole = reference([bytes]);
    t.same(frame([bytes]), whole, `${JSON.stringify(text.slice(0, 60))} in one read`);
    t.same(frame([bytes], true), reference([bytes], true), `${JSON.stringify(text.slice(0, 60))}, a HEAD answer`);
    t.same(frame([bytes], false, false), reference([bytes], false, false), 'the peer still connected');
    let split = 0;
    for (let i = 1; i < bytes.length; i++) {
      const reads = [bytes.subarray(0, i), bytes.subarray(i)];
      if (JSON.stringify(frame(reads)) !== JSON.stringify(reference(reads))) split++;
    }
    t.equal(
      split,
      0,
      `${JSON.stringify(text.slice(0, 60))}: the same in two reads, at each of ${bytes.length - 1} points`,
    );
    const bytewise = [...bytes].map((x) => Buffer.from([x]));
    t.same(frame(bytewise), reference(bytewise), 'one byte per read');
  }
});

t.test('mutated answers (a byte replaced, inserted or removed) framed as http-parser-js frames them', async (t) => {
  // A seeded generator: the same cases on every run.
  let seed = 42;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const alphabet = b(':\r\n \t0123456789abcdefABCDEF-;HTTP/.\xba\x8a\x8d\xe9xz');
  let compared = 0;
  const differ: string[] = [];
  for (let round = 0; round < 6000; round++) {
    const base = b(ANSWERS[rand(ANSWERS.length)]);
    const at = rand(base.length);
    const x = alphabet[rand(alphabet.length)];
    const kind = rand(3);
    const bytes =
      kind === 0
        ? Buffer.concat([base.subarray(0, at), Buffer.from([x]), base.subarray(at + 1)])
        : kind === 1
          ? Buffer.concat([base.subarray(0, at), Buffer.from([x]), base.subarray(at)])
          : Buffer.concat([base.subarray(0, at), base.subarray(at + 1)]);
    const text = bytes.toString('ascii');
    // What the framer does differently on purpose: an interim answer's body, a negative chunk size.
    if (/HTTP\/\d\.\d 1\d\d/.test(text.replace(/HTTP\/\d\.\d 101/g, '')) || /\n\s*-/.test(text)) continue;
    const cut = 1 + rand(bytes.length);
    const reads = [bytes.subarray(0, cut), bytes.subarray(cut)];
    compared++;
    if (JSON.stringify(frame(reads)) !== JSON.stringify(reference(reads))) differ.push(JSON.stringify(text));
  }
  t.ok(compared > 4000, `${compared} mutated answers compared`);
  t.same(differ, [], 'no answer framed otherwise');
});

t.test('what the framer does on purpose otherwise: interim answers have no body; each head is bounded', async (t) => {
  t.same(
    frame([b('HTTP/1.1 100 Continue\r\ncontent-length: 4\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok')]),
    { status: 200, contentLength: '2', location: undefined, body: 'ok', complete: true, error: null },
    "an interim answer's Content-Length is not read as a body (RFC 9110: a 1xx answer has none)",
  );
  const big = `HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(MAX_HEAD_BYTES)}`;
  const overflow = 'HPE_HEADER_OVERFLOW Parse Error: Header overflow';
  t.equal(frame([b('HTTP/1.1 100 Continue\r\n\r\n'), b(big)]).error, overflow, 'after an interim answer too');
  t.equal(frame([b(big), b('\r\n\r\n')]).error, overflow, 'checked as a read ends in the head');
  t.same(
    frame([b(`${big}\r\ncontent-length: 2\r\n\r\nok`)]),
    { status: 200, contentLength: '2', location: undefined, body: 'ok', complete: true, error: null },
    'a head that ends within the read that brought it is read (as node:http and http-parser-js did)',
  );
  t.equal(
    frame([b('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n-5\r\nabc\r\n0\r\n\r\n')]).error,
    'HPE_INVALID_CHUNK_SIZE Parse Error: Invalid character in chunk size',
    'a negative chunk size is an error',
  );
});

t.test('one framer per answer: nothing of one answer reaches the next', async (t) => {
  // The probe makes a framer per hop; two framers fed in turn keep their own state.
  const a = new Recorder(false);
  const c = new Recorder(false);
  a.execute(b('HTTP/1.1 302 Found\r\nlocation: /a\r\ntransfer-encoding: chunked\r\n\r\n3\r\nab'));
  c.execute(b('HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\nxy'));
  a.execute(b('c\r\n0\r\n\r\n'));
  c.execute(b('z'));
  t.same(a.out, { status: 302, contentLength: undefined, location: '/a', body: 'abc', complete: true, error: null });
  t.same(c.out, { status: 200, contentLength: '3', location: undefined, body: 'xyz', complete: true, error: null });
  t.equal(a.heads, 1);
  a.execute(b('HTTP/1.1 500 Later\r\ncontent-length: 1\r\n\r\nx'));
  t.same([a.heads, a.out.status, a.out.body], [1, 302, 'abc'], 'bytes after the answer are not read');
});

t.test(
  'reads into one shared buffer: what a framer keeps is its own, stale bytes past a read are not read',
  async (t) => {
    // As the probe's plain sockets read: every read of every socket into one buffer, `n` bytes each.
    const shared = Buffer.alloc(256, '\n');
    const feed = (r: Recorder, text: string) => {
      shared.fill('\n');
      const n = shared.write(text, 'latin1');
      // Whatever was in the buffer before (here line feeds) stays past the read's `n` bytes.
      return r.execute(shared, n);
    };
    const a = new Recorder(false);
    const c = new Recorder(false);
    feed(a, 'HTTP/1.1 200 OK\r\ncontent-le');
    feed(c, 'HTTP/1.1 404 Not Found\r\ntransfer-encoding: chunked\r\n\r\n5\r\nno');
    feed(a, 'ngth: 6\r\nx-y: z\r\n\r\nhel');
    feed(c, 'ne!\r\n0\r\n\r\n');
    feed(a, 'lo!');
    t.same(a.out, {
      status: 200,
      contentLength: '6',
      location: undefined,
      body: 'hello!',
      complete: true,
      error: null,
    });
    t.same(c.out, {
      status: 404,
      contentLength: undefined,
      location: undefined,
      body: 'none!',
      complete: true,
      error: null,
    });
    const d = new Recorder(false);
    feed(d, 'HTTP/1.1 200 OK');
    t.same([d.out.status, d.out.error], [null, null], 'a status line without its end waits for the next read');
  },
);
