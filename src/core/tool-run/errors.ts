// Errors that mean "nothing ran": the call's input or the tool's setup is
// wrong (a template variable, a missing cwd, an unreadable env_file). The
// runtime shows these as a clear error result instead of a run failure.

export class ToolInputError extends Error {
  override readonly name = 'ToolInputError';
}

/** The abort reason of runs the server stops because it is shutting down. */
export class ServerShutdown extends Error {
  override readonly name = 'ServerShutdown';
  constructor() {
    super('server shutting down');
  }
}

/** Why an aborted run stopped, as the runners report it. */
export function stopReasonOf(signal: AbortSignal | undefined): 'shutdown' | 'cancelled' {
  return signal?.reason instanceof ServerShutdown ? 'shutdown' : 'cancelled';
}
