// DNS-rebinding and cross-site protection: only our own Host and Origin.

export function allowedHosts(boundHost: string, port: number): Set<string> {
  const names = new Set([hostForUrl(boundHost)]);
  if (isLoopback(boundHost)) for (const n of ['127.0.0.1', 'localhost', '[::1]']) names.add(n);
  return new Set([...names].map((n) => `${n}:${port}`.toLowerCase()));
}

export function allowedOrigins(boundHost: string, port: number): Set<string> {
  const names = new Set([hostForUrl(boundHost)]);
  if (isLoopback(boundHost)) for (const n of ['127.0.0.1', 'localhost']) names.add(n);
  return new Set([...names].map((n) => `http://${n}:${port}`.toLowerCase()));
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export function hostForUrl(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
