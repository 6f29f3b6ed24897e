// The `curl:` shorthand, expanded to the exec command it stands for.

const TEMPLATED = /\{\{|\{%/;

/**
 * A bare URL is single-quoted (so `&` is no shell operator); a value starting
 * with flags is used as written. A URL with templates is rendered first and
 * then shell-quoted as a whole, so no parameter value can end the quoting.
 */
export function curlCommand(value: string, stdin: boolean): string {
  const v = value.trim();
  const suffix = stdin ? ' --json @-' : '';
  if (v.startsWith('-')) return `curl -sL -o - ${v}${suffix}`;
  if (TEMPLATED.test(v)) return `{% set mcc_curl_url %}${v}{% endset %}curl -sL -o - {{ mcc_curl_url | quote }}${suffix}`;
  return `curl -sL -o - '${v.replace(/'/g, `'"'"'`)}'${suffix}`;
}

/** Whether the shorthand quotes the whole URL itself (so `{{ p }}` inside it is safe). */
export function curlQuotesUrl(value: string): boolean {
  return !value.trim().startsWith('-');
}
