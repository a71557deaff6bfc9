// The connections the tests' fetch() uses, installed as undici's global dispatcher (the one Node's own
// fetch reads) by importing this module: test/support/app.ts and cli.ts do, so every file that talks
// HTTP to an app or a daemon has it.
//
// A kept-alive connection the server is closing at that moment (its 5 s idle timeout) resets the next
// request sent on it before any answer. fetch's own idle limit is the server's hint less 1 s, checked
// on a coarse timer, so on a loaded machine it can run past the server's. A GET or HEAD can be sent
// again (request() in app.ts does); a POST, PUT, PATCH or DELETE cannot be, safely, so:
//
// - a request that is not a GET or HEAD goes on a connection of its own, closed after its answer
//   (undici's `pipelining: 0`: no keep-alive), so it never meets a closing one;
// - a GET or HEAD reuses a connection idle for at most 1 s: far inside the server's 5 s.
import undici from 'undici';
import type { Dispatcher } from 'undici';

const kept = new undici.Agent({ keepAliveTimeout: 1000, keepAliveMaxTimeout: 1000 });
const fresh = new undici.Agent({ pipelining: 0 });

/** Routes a request to `kept` or `fresh` by its method. */
class ByMethod extends undici.Dispatcher {
  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandlers): boolean {
    return (opts.method === 'GET' || opts.method === 'HEAD' ? kept : fresh).dispatch(opts, handler);
  }

  override async close(): Promise<void> {
    await Promise.all([kept.close(), fresh.close()]);
  }

  override async destroy(): Promise<void> {
    await Promise.all([kept.destroy(), fresh.destroy()]);
  }
}

undici.setGlobalDispatcher(new ByMethod());
