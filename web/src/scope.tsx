// What the signed-in session may do (docs/web.md, docs/accounts.md): a viewer's session (a viewer,
// or a read-only token) shows no write control, an editor's none of the owner's (notification
// channels); the API refuses them anyway (403 FORBIDDEN_ROLE, READ_ONLY_TOKEN). main.tsx provides
// both from GET /ui/session.
import { createContext, type ComponentChildren } from 'preact';
import { useContext } from 'preact/hooks';

/** The session may change domains, endpoints, checks, status pages, maintenance and portfolios (editor). */
export const CanWrite = createContext(true);
/** The session may change what only an owner may: notification channels, every token of the team. */
export const CanOwn = createContext(true);

/** Its children only when the session may write (`owner`: only when it is an owner's). */
export function Write({ children, owner }: { children: ComponentChildren; owner?: boolean }) {
  const write = useContext(CanWrite);
  const own = useContext(CanOwn);
  return (owner ? own : write) ? <>{children}</> : null;
}
