// The one error type of the session store. Its message is written for the
// caller (an LLM, a sidebar user), so it says what is wrong and where.

export class SessionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SessionError';
  }
}
