// The dashboard's one way to the server: same-origin fetch with the session cookie (HttpOnly, set by
// POST /ui/session); every write carries the session's CSRF token in X-CSRF-Token. A 401 anywhere
// means the session is gone (token revoked, signed out elsewhere): the app shows the sign-in form.

export interface Session {
  signed_in: true;
  team: string;
  user: string;
  token_name: string;
  /** A read-only token: the page shows no write control. */
  read_only: boolean;
  /** The session's role in the team (docs/accounts.md): viewer for a read-only token. */
  role: 'owner' | 'editor' | 'viewer';
  csrf_token: string;
  /** A password sign-in (docs/accounts.md): the account's teams, which the header menu switches between. */
  account?: true;
  teams?: string[];
}

/** A failed check of a request, by field (the dotted path the API names). */
interface FieldError {
  field: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    /** A 400's `errors`: every failed check by field. */
    readonly fields: readonly FieldError[] = [],
  ) {
    super(message);
  }
}

/**
 * `{ field: message }` of an error: the API's `errors` list (every failed check), else a message
 * that starts with a field path ("liveness.interval_seconds: must be >= 1", a service's own check).
 */
export function fieldErrors(err: unknown): Record<string, string> {
  if (!(err instanceof ApiError)) return {};
  const out: Record<string, string> = {};
  for (const f of err.fields) out[f.field] ??= f.message;
  if (Object.keys(out).length) return out;
  const m = /^([A-Za-z0-9_.-]+): (.+)$/.exec(err.message);
  return m ? { [m[1]!]: m[2]! } : {};
}

let csrf = '';
const listeners = new Set<() => void>();

/** Each GET's last answer and its ETag: polls send If-None-Match and reuse the answer on 304. */
const answers = new Map<string, { etag: string; data: unknown }>();
const MAX_ANSWERS = 300;
let fresh = 0;
/** How many GETs brought a new answer (not 304) so far: a view whose load saw none keeps its data. */
export const freshAnswers = () => fresh;

/** Called when any request answers 401. */
export function onSignedOut(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The GET of each path in flight now: a second GET of it waits for that one and then asks with its ETag. */
const inFlight = new Map<string, Promise<unknown>>();

/**
 * One request. A GET of a path already being read (a view's first read, and the read the live feed's
 * `ready` asks for at the same moment) is sent when that one has answered, with its ETag: unchanged, it
 * is a 304 of a few hundred bytes, not the answer again, and it still sees what changed meanwhile.
 */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  if (method !== 'GET') return request<T>(method, path, body);
  const before = inFlight.get(path);
  const run = before ? before.catch(() => undefined).then(() => request<T>(method, path)) : request<T>(method, path);
  inFlight.set(path, run);
  try {
    return await run;
  } finally {
    if (inFlight.get(path) === run) inFlight.delete(path);
  }
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrf) headers['x-csrf-token'] = csrf;
  const known = method === 'GET' ? answers.get(path) : undefined;
  if (known) headers['if-none-match'] = known.etag;
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      // The answers map is the cache: the browser's own would turn 304s back into 200s.
      cache: 'no-store',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'The dommon server cannot be reached (network error).', 'NETWORK');
  }
  if (res.status === 304 && known) {
    await res.text(); // read to its (empty) end: a response left unread counts as an aborted load
    return known.data as T;
  }
  if (res.status === 204) return undefined as T;
  const data = (await res.json().catch(() => ({}))) as { error?: string; code?: string; errors?: unknown };
  if (!res.ok) {
    if (res.status === 401 && !path.startsWith('/ui/')) listeners.forEach((fn) => fn());
    if (res.status === 401 && path !== '/ui/session' && path !== '/ui/session/passkey') listeners.forEach((fn) => fn());
    if (res.status === 429) {
      const wait = res.headers.get('retry-after');
      throw new ApiError(429, `Too many requests for now${wait ? `: try again in ${wait} s` : ''}.`, data.code);
    }
    const fields = Array.isArray(data.errors)
      ? data.errors.filter(
          (e): e is FieldError =>
            typeof (e as FieldError | null)?.field === 'string' && typeof (e as FieldError).message === 'string',
        )
      : [];
    throw new ApiError(res.status, data.error ?? `HTTP ${res.status}`, data.code, fields);
  }
  if (method === 'GET') {
    fresh++;
    const etag = res.headers.get('etag');
    if (etag) {
      if (answers.size >= MAX_ANSWERS) answers.clear();
      answers.set(path, { etag, data });
    }
  }
  return data as T;
}

export const get = <T>(path: string) => api<T>('GET', path);

/**
 * A GET of an answer that is the same for every session and changes only with the server's version
 * (GET /ui/schemas): through the browser's own cache, which keeps it across page loads and
 * revalidates it by its ETag, so a repeat visit gets a 304 of a few hundred bytes, not the answer.
 */
export async function getShared<T>(path: string): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
  } catch {
    throw new ApiError(0, 'The dommon server cannot be reached (network error).', 'NETWORK');
  }
  if (!res.ok) throw new ApiError(res.status, `HTTP ${res.status}`);
  return (await res.json()) as T;
}

/** The single sign-on the server offers (its GET /ui/session answer while signed out), if any. */
let sso: { name: string; url: string } | undefined;
export const singleSignOn = () => sso;

export async function currentSession(): Promise<Session | null> {
  const s = await get<Session | { signed_in: false; sso?: { name: string; url: string } }>('/ui/session');
  if (!s.signed_in) {
    sso = s.sso;
    return null;
  }
  csrf = s.csrf_token;
  return s;
}

/** Signs in with an API token, or with an account's e-mail and password. */
export async function signIn(credential: { token: string } | { email: string; password: string }): Promise<Session> {
  const s = await api<Session>('POST', '/ui/session', credential);
  csrf = s.csrf_token;
  answers.clear();
  return s;
}

/** What a one-time link will do (docs/accounts.md#one-time-links), before it is used. */
export interface LinkView {
  purpose: 'setup' | 'sign-in' | 'invitation' | 'reset';
  email: string | null;
  team: string | null;
  role: 'owner' | 'editor' | 'viewer' | null;
  password: 'required' | 'optional' | 'current';
  expires_at: string;
}

export const linkInfo = (token: string) => api<LinkView>('POST', '/ui/link', { token });

/** Uses a one-time link (a password, and for a set-up link the e-mail and team) and signs in. */
export async function redeemLink(
  token: string,
  body: { password?: string; email?: string; team?: string },
): Promise<Session> {
  const s = await api<Session>('POST', '/ui/link/use', { token, ...body });
  csrf = s.csrf_token;
  answers.clear();
  return s;
}

/** "Forgot password": the same answer whether or not the e-mail has an account. */
export const forgotPassword = (email: string) => api<{ message: string }>('POST', '/ui/password-reset', { email });

/**
 * Signs in with a passkey (docs/accounts.md#passkeys): the server's options with a one-time
 * challenge, the browser's authenticator signs it, the server checks it. `autofill`: conditional UI,
 * the browser offers its passkeys in the e-mail field's autofill and this waits until one is picked.
 */
export async function signInWithPasskey(autofill = false): Promise<Session> {
  const { startAuthentication } = await import('@simplewebauthn/browser');
  const optionsJSON = await api<Parameters<typeof startAuthentication>[0]['optionsJSON']>(
    'POST',
    '/ui/session/passkey/options',
    {},
  );
  const response = await startAuthentication({ optionsJSON, useBrowserAutofill: autofill });
  const s = await api<Session>('POST', '/ui/session/passkey', { response });
  csrf = s.csrf_token;
  answers.clear();
  return s;
}

/** Moves a password sign-in's session to another of the account's teams; every cached answer was the old team's. */
export async function switchTeam(team: string): Promise<Session> {
  const s = await api<Session>('POST', '/ui/session/team', { team });
  answers.clear();
  return s;
}

/**
 * Changes the signed-in person's password (docs/accounts.md#changing-your-password): the current one
 * proves them; every other session of the account ends, this one stays.
 */
export const changePassword = (current_password: string, new_password: string) =>
  api<{ message: string; ended_sessions: number }>('POST', '/ui/session/password', { current_password, new_password });

export async function signOut(): Promise<void> {
  await api('DELETE', '/ui/session');
  csrf = '';
  answers.clear();
  // The signed-out answer says what the sign-in page offers besides its form (single sign-on).
  await currentSession().catch(() => null);
}

/** Every page of a Public API list (`data` + `pagination.total`), at most `max` items. */
export async function all<T>(path: string, max = 500): Promise<T[]> {
  const out: T[] = [];
  const sep = path.includes('?') ? '&' : '?';
  for (;;) {
    const r = await get<{ data: T[]; pagination: { total: number } }>(`${path}${sep}limit=100&offset=${out.length}`);
    out.push(...r.data);
    if (r.data.length === 0 || out.length >= r.pagination.total || out.length >= max) return out;
  }
}
