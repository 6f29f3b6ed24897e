// DNS-rebinding and cross-site protection: only our own Host and Origin.

// `publicHosts` are the names a reverse proxy forwards in Host (`--public-host`):
// exactly as given (a name, or name:port), and their http/https origins.

export function allowedHosts(boundHost: string, port: number, publicHosts: readonly string[] = []): Set<string> {
  const names = new Set([hostForUrl(boundHost)]);
  if (isLoopback(boundHost)) for (const n of ['127.0.0.1', 'localhost', '[::1]']) names.add(n);
  return new Set([...[...names].map((n) => `${n}:${port}`), ...publicHosts].map((n) => n.toLowerCase()));
}

export function allowedOrigins(boundHost: string, port: number, publicHosts: readonly string[] = []): Set<string> {
  const names = new Set([hostForUrl(boundHost)]);
  if (isLoopback(boundHost)) for (const n of ['127.0.0.1', 'localhost']) names.add(n);
  const own = [...names].map((n) => `http://${n}:${port}`);
  const proxied = publicHosts.flatMap((h) => [`https://${h}`, `http://${h}`]);
  return new Set([...own, ...proxied].map((o) => o.toLowerCase()));
}

/** Undefined when `value` can be a Host header: a DNS name or IP address, with an optional port. */
export function publicHostError(value: string): string | undefined {
  const ok = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i.test(value);
  return ok ? undefined : `'${value}' is not a host name (a name such as mcc.example.com or an address, optionally with :port; no scheme or path)`;
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export function hostForUrl(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
