// What the signed-in token may do (docs/web.md): a read-only token's session shows no write control
// (the API refuses its writes anyway, 403 READ_ONLY_TOKEN). main.tsx provides it from GET /ui/session.
import { createContext, type ComponentChildren } from 'preact';
import { useContext } from 'preact/hooks';

export const CanWrite = createContext(true);

/** Its children only when the session may write. */
export function Write({ children }: { children: ComponentChildren }) {
  return useContext(CanWrite) ? <>{children}</> : null;
}
