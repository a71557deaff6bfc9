// A stored check error (`reason: detail`, probes/types.ts) said as a person would read it on the
// dashboard: what failed, in words, with the probe's own detail kept for whoever needs it.

const WORDS: Record<string, (detail: string) => string> = {
  timeout: (d) => `No answer in time (${d})`,
  dns: (d) => `The name does not resolve (${d})`,
  refused: (d) =>
    d === 'connection refused' ? 'Connection refused: nothing answers on that port' : `Unreachable (${d})`,
  reset: () => 'The server closed the connection before answering',
  tls: (d) => `TLS handshake failed (${d})`,
  status: (d) => `Wrong answer: ${d}`,
  denied: (d) => `Not checked: the outbound policy refuses this address (${d})`,
  loss: (d) => `Packets lost (${d})`,
  late: (d) => `No heartbeat in time: ${d}`,
  failed: (d) => `The job reported a failure: ${d.replace(/^the job reported a failure /, '')}`,
  cancelled: () => 'The check was cancelled (its node stopped)',
  error: (d) => `Check failed: ${d}`,
};

/** The words for a failed check's stored error; null for none (a check that passed). */
export function explainCheckError(error: string | null): string | null {
  if (!error) return null;
  const colon = error.indexOf(': ');
  const reason = colon > 0 ? error.slice(0, colon) : '';
  const words = WORDS[reason];
  return words ? words(error.slice(colon + 2)) : `Check failed: ${error}`;
}
