// The `curl:` shorthand, expanded to the exec command it stands for.

/** A bare URL is single-quoted (so `&` is no shell operator); a value starting with flags is used as written. */
export function curlCommand(value: string, stdin: boolean): string {
  const v = value.trim();
  const target = v.startsWith('-') ? v : `'${v.replace(/'/g, `'"'"'`)}'`;
  return `curl -sL -o - ${target}${stdin ? ' --json @-' : ''}`;
}
