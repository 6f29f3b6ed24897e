// What is started for a command: the command itself, or the sandbox's
// wrapper around it (bwrap, its options, `--`, then the command). Exec
// runs on pipes and in terminals and the Python runner all start through it.

export interface Launch {
  file: string;
  args: string[];
}

/** The sandbox's wrapper of a command (Sandbox.prepare). */
export type Wrap = (file: string, args: readonly string[]) => Launch;

export function launchOf(file: string, args: readonly string[], wrap: Wrap | undefined): Launch {
  return wrap ? wrap(file, args) : { file, args: [...args] };
}
