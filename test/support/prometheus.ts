// Parses Prometheus text exposition into samples keyed by name and sorted labels.
interface Exposition {
  samples: Map<string, number>;
  types: Map<string, string>;
  /** Value of one series, or undefined when it is absent. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** Every series of a metric name. */
  series(name: string): { labels: Record<string, string>; value: number }[];
}

const key = (name: string, labels: Record<string, string>) =>
  `${name}{${Object.keys(labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k])}`)
    .join(',')}}`;

export function parseExposition(text: string): Exposition {
  const samples = new Map<string, number>();
  const types = new Map<string, string>();
  const all: { name: string; labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/.exec(line);
    if (!m) throw new Error(`unparsable exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    const value = m[3] === '+Inf' ? Infinity : m[3] === '-Inf' ? -Infinity : Number(m[3]);
    samples.set(key(m[1]!, labels), value);
    all.push({ name: m[1]!, labels, value });
  }
  return {
    samples,
    types,
    value: (name, labels = {}) => samples.get(key(name, labels)),
    series: (name) => all.filter((s) => s.name === name).map(({ labels, value }) => ({ labels, value })),
  };
}
