// The framing of an HTTP/1.x answer, from the socket's bytes as they come: the status line, the
// headers a check acts on (Content-Length, Transfer-Encoding, Location), and the body by its length,
// in chunks or to the close; interim 1xx answers are skipped. Each line, header and chunk is read by
// http-parser-js's rules (the head decoded as 'ascii', so every byte's high bit unset; the same
// errors), but no string, list or object is made for a header no rule acts on, nor per body piece
// beyond the view of it: what the probe allocates per answer is what it keeps (docs/benchmarks.md).
// One framer reads one answer on one connection; a subclass receives the head, the body and the end.

/** What onHead answers: read the body, or stop at the head (the answer is complete or not wanted). */
export const READ_ON = 0;
export const STOP = 2;

/** The longest head (status line and headers) read, as node:http's default; checked as each read ends. */
export const MAX_HEAD_BYTES = 16 * 1024;

/** A protocol error, as node:http reports one (classified as an `error` with its code). */
export const parseError = (code: string, message: string) =>
  Object.assign(new Error(`Parse Error: ${message}`), { code });

const STATUS_LINE = 0;
const HEADER = 1;
const CHUNK_HEAD = 2;
const CHUNK = 3;
const CHUNK_END = 4;
const TRAILER = 5;
const SIZED = 6;
const RAW = 7;
const DONE = 8;

/** Headers a rule acts on; any other is skipped without being decoded. */
const NONE = 0;
const LENGTH = 1;
const ENCODING = 2;
const LOCATION = 3;
const UPGRADE = 4;
const CONNECTION = 5;

const CONTENT_LENGTH = Buffer.from('content-length');
const TRANSFER_ENCODING = Buffer.from('transfer-encoding');
const LOCATION_NAME = Buffer.from('location');
const UPGRADE_NAME = Buffer.from('upgrade');
const CONNECTION_NAME = Buffer.from('connection');

const CR = 13;
const LF = 10;
const SP = 32;
const TAB = 9;
const COLON = 58;

/** A continuation line (obs-fold), as http-parser-js reads one. */
const CONTINUATION = /^[ \t]+(.*[^ \t])/;

/** http-parser-js's errors for a malformed head: node:http's words. */
const notHttp = (code: string) => parseError(code, 'not an HTTP response');

/** Whether buf[from, to) spells `name` (lower case), compared as the 'ascii' decoding lower-cased. */
function named(buf: Buffer, from: number, to: number, name: Buffer): boolean {
  if (to - from !== name.length) return false;
  for (let i = 0; i < name.length; i++) {
    let c = buf[from + i] & 0x7f;
    if (c >= 65 && c <= 90) c += 32;
    if (c !== name[i]) return false;
  }
  return true;
}

const digit = (c: number) => c >= 48 && c <= 57;

export abstract class ResponseFramer {
  private state = STATUS_LINE;
  /** The start of a line that a read ended in the middle of (rare: a head in several packets). */
  private partial: Buffer | null = null;
  /** Bytes of the current answer's head read so far. */
  private headBytes = 0;
  /** Bytes left in a sized body or the current chunk; null: no length (read to the close). */
  private left: number | null = null;
  private chunked = false;
  private hasLength = false;
  private lengthsDiffer = false;
  private upgradeHeader = false;
  private connection = '';
  /** The last header when a rule acts on it (continuation lines extend it), and its value so far. */
  private lastKind = NONE;
  private lastValue = '';
  /** http-parser-js stops reading a chunk after an upgrade's head. */
  private pause = false;
  /** The current answer's status code. */
  protected status = 0;
  /** Its first Content-Length, as sent (spaces and tabs around it removed). */
  protected contentLength: string | undefined = undefined;
  /** Its first Location. */
  protected location: string | undefined = undefined;

  /** The head of the final (not 1xx) answer: READ_ON or STOP. */
  protected abstract onHead(): number;
  /** A piece of the body: bytes [from, to) of chunk (valid during the call only). */
  protected abstract onBody(chunk: Buffer, from: number, to: number): void;
  /** The final answer is complete. */
  protected abstract onComplete(): void;

  /** Stops reading: whatever comes next is ignored. */
  protected stop(): void {
    this.state = DONE;
  }

  /**
   * Reads the bytes of one read from the socket (the first `end` of `chunk`); an Error when they are
   * not a well-formed answer. `chunk` may be a buffer every read goes into: nothing is kept of it
   * past the call but copies (onBody's receiver copies what it keeps).
   */
  execute(chunk: Buffer, end = chunk.length): Error | null {
    let at = 0;
    this.pause = false;
    try {
      while (at < end && this.state !== DONE && !this.pause) {
        const state = this.state;
        if (state === SIZED || state === CHUNK || state === RAW) {
          const n = state === RAW ? end - at : Math.min(end - at, this.left!);
          this.onBody(chunk, at, at + n);
          at += n;
          if (this.state === DONE) break;
          if (state !== RAW && (this.left! -= n) === 0) {
            if (state === SIZED) this.complete();
            else this.state = CHUNK_END;
          }
          continue;
        }
        const head = state === STATUS_LINE || state === HEADER;
        let nl = chunk.indexOf(LF, at);
        // Past `end` lie the bytes of an earlier read of a shared buffer: not this one's.
        if (nl >= end) nl = -1;
        if (nl < 0) {
          const rest = chunk.subarray(at, end);
          this.partial = this.partial ? Buffer.concat([this.partial, rest]) : Buffer.from(rest);
          if (head) this.headBytes += end - at;
          at = end;
          break;
        }
        let line = chunk;
        let from = at;
        let to = nl;
        if (this.partial) {
          line = Buffer.concat([this.partial, chunk.subarray(at, nl)]);
          from = 0;
          to = line.length;
          this.partial = null;
        }
        if (to > from && (line[to - 1] & 0x7f) === CR) to--;
        if (head) this.headBytes += nl + 1 - at;
        at = nl + 1;
        this.line(line, from, to);
      }
    } catch (err) {
      this.state = DONE;
      return err as Error;
    }
    if ((this.state === STATUS_LINE || this.state === HEADER) && this.headBytes > MAX_HEAD_BYTES) {
      this.state = DONE;
      return parseError('HPE_HEADER_OVERFLOW', 'Header overflow');
    }
    return null;
  }

  /** The peer closed: the end of a body read to the close. */
  finish(): void {
    if (this.state === RAW) this.complete();
  }

  private line(buf: Buffer, from: number, to: number): void {
    switch (this.state) {
      case STATUS_LINE:
        // Empty lines before a status line are skipped.
        if (to > from) this.statusLine(buf, from, to);
        return;
      case HEADER:
        if (to > from) this.header(buf, from, to, true);
        else this.headEnd();
        return;
      case CHUNK_HEAD: {
        // As http-parser-js: parseInt of the line (extensions after the digits ignored); 0 or no number ends the body.
        const size = parseInt(buf.toString('ascii', from, to), 16);
        if (size < 0) throw parseError('HPE_INVALID_CHUNK_SIZE', 'Invalid character in chunk size');
        if (!size) this.state = TRAILER;
        else {
          this.left = size;
          this.state = CHUNK;
        }
        return;
      }
      case CHUNK_END:
        if (to > from) throw parseError('HPE_INVALID', 'Expected empty line');
        this.state = CHUNK_HEAD;
        return;
      case TRAILER:
        if (to > from) this.header(buf, from, to, false);
        else this.complete();
        return;
    }
  }

  /** `HTTP/d.d ddd[ reason]`, as http-parser-js's /^HTTP\/(\d)\.(\d) (\d{3}) ?(.*)$/ on the 'ascii' text. */
  private statusLine(buf: Buffer, from: number, to: number): void {
    const c = (i: number) => buf[from + i] & 0x7f;
    const ok =
      to - from >= 12 &&
      c(0) === 72 && // H
      c(1) === 84 && // T
      c(2) === 84 && // T
      c(3) === 80 && // P
      c(4) === 47 && // /
      digit(c(5)) &&
      c(6) === 46 && // .
      digit(c(7)) &&
      c(8) === SP &&
      digit(c(9)) &&
      digit(c(10)) &&
      digit(c(11));
    if (!ok) throw notHttp('HPE_INVALID_CONSTANT');
    // The reason phrase: any characters but line breaks (a trailing CR is already gone).
    for (let i = from + 12; i < to; i++) {
      const b = buf[i] & 0x7f;
      if (b === CR || b === LF) throw notHttp('HPE_INVALID_CONSTANT');
    }
    this.status = (c(9) - 48) * 100 + (c(10) - 48) * 10 + (c(11) - 48);
    // 1xx, 204 and 304 have no body (a Content-Length given after this still counts, as in http-parser-js).
    const s = this.status;
    this.left = (s >= 100 && s < 200) || s === 204 || s === 304 ? 0 : null;
    this.state = HEADER;
  }

  /** A header (or trailer) line: `name: value`, or a continuation of the last header. */
  private header(buf: Buffer, from: number, to: number, head: boolean): void {
    for (let i = from; i < to; i++) if ((buf[i] & 0x7f) === CR) throw notHttp('HPE_LF_EXPECTED');
    if (!head) return;
    // The name: one or more characters up to ':', none of them ':', space or tab.
    let colon = from;
    for (; colon < to; colon++) {
      const b = buf[colon] & 0x7f;
      if (b === COLON || b === SP || b === TAB) break;
    }
    if (colon === from || colon === to || (buf[colon] & 0x7f) !== COLON) {
      // Not a header; a line starting with a space or a tab continues the last one.
      const first = buf[from] & 0x7f;
      if ((first === SP || first === TAB) && this.lastKind !== NONE) {
        const m = CONTINUATION.exec(buf.toString('ascii', from, to));
        if (m) this.lastValue = this.lastValue ? `${this.lastValue} ${m[1]}` : m[1];
      }
      return;
    }
    this.commit();
    const kind = named(buf, from, colon, CONTENT_LENGTH)
      ? LENGTH
      : named(buf, from, colon, TRANSFER_ENCODING)
        ? ENCODING
        : named(buf, from, colon, LOCATION_NAME)
          ? LOCATION
          : this.status === 101 && named(buf, from, colon, UPGRADE_NAME)
            ? UPGRADE
            : this.status === 101 && named(buf, from, colon, CONNECTION_NAME)
              ? CONNECTION
              : NONE;
    if (kind === NONE) return;
    // The value: spaces and tabs around it removed; it ends at a line break (a byte that reads as one), included.
    let v = colon + 1;
    while (v < to && ((buf[v] & 0x7f) === SP || (buf[v] & 0x7f) === TAB)) v++;
    let end = v;
    while (end < to && (buf[end] & 0x7f) !== LF) end++;
    if (end < to) end++;
    else while (end > v && ((buf[end - 1] & 0x7f) === SP || (buf[end - 1] & 0x7f) === TAB)) end--;
    this.lastKind = kind;
    this.lastValue = buf.toString('ascii', v, end);
  }

  /** Applies the last header once no continuation line can extend it. */
  private commit(): void {
    const v = this.lastValue;
    switch (this.lastKind) {
      case LENGTH: {
        const n = +v;
        if (!this.hasLength) {
          this.hasLength = true;
          this.left = n;
          this.contentLength = v;
        } else if (n !== this.left) this.lengthsDiffer = true;
        break;
      }
      case ENCODING:
        this.chunked = v.toLowerCase() === 'chunked';
        break;
      case LOCATION:
        this.location ??= v;
        break;
      case UPGRADE:
        this.upgradeHeader = true;
        break;
      case CONNECTION:
        this.connection += v.toLowerCase();
        break;
    }
    this.lastKind = NONE;
  }

  private headEnd(): void {
    this.commit();
    if (this.lengthsDiffer) throw notHttp('HPE_UNEXPECTED_CONTENT_LENGTH');
    const s = this.status;
    if (s >= 100 && s < 200 && s !== 101) {
      // An interim answer (100 Continue, 103 Early Hints) has no body: the real one follows.
      this.complete();
      return;
    }
    // Transfer-Encoding: chunked wins over a Content-Length, except after an upgrade.
    const upgrade = this.upgradeHeader && this.connection.includes('upgrade');
    if (this.chunked && this.hasLength) this.left = null;
    if (upgrade) this.chunked = false;
    const next = this.onHead();
    if (this.state === DONE) return;
    if (next === STOP) {
      this.complete();
      this.pause = true;
    } else if (this.chunked) this.state = CHUNK_HEAD;
    else if (this.left === 0) {
      this.complete();
      if (upgrade) this.pause = true;
    } else this.state = this.left === null ? RAW : SIZED;
  }

  /** The end of an answer: an interim one makes way for the next; the final one is handed over. */
  private complete(): void {
    const s = this.status;
    if (s >= 100 && s < 200 && s !== 101) {
      this.state = STATUS_LINE;
      this.headBytes = 0;
      this.left = null;
      this.chunked = false;
      this.hasLength = false;
      this.lengthsDiffer = false;
      this.contentLength = undefined;
      this.location = undefined;
      return;
    }
    this.state = DONE;
    this.onComplete();
  }
}
