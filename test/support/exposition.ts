// Reads Prometheus exposition text as Prometheus does: one sample per line,
// `name{label="value",...} number`, comments skipped. Tests look samples up
// by name and labels instead of matching the text.
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

/** The samples named `name` whose labels include all of `labels`. */
export function samples(text: string, name: string, labels: Record<string, string> = {}): Sample[] {
  return parseExposition(text).filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The value of the one sample named `name` with exactly these labels (le aside); undefined when there is none. */
export function value(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples(text, name, labels).filter((s) => Object.keys(s.labels).filter((k) => k !== 'le').length === Object.keys(labels).filter((k) => k !== 'le').length);
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0]?.value;
}
