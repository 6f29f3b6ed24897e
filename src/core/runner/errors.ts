// Errors that mean "nothing ran": the call's input or the tool's setup is
// wrong (a template variable, a missing cwd, an unreadable env_file). The
// runtime shows these as a clear error result instead of a run failure.

export class ToolInputError extends Error {
  override readonly name = 'ToolInputError';
}
