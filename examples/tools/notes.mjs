// JavaScript function tools for the sample catalog. Each is called as
// fn(params, context); what it leaves in `context` is written back to the
// caller's session.

/** Remembers a note in the session (context.notes) and returns all notes. */
export function remember(params, context) {
  const notes = Array.isArray(context.notes) ? context.notes : [];
  notes.push(params.note);
  context.notes = notes;
  return { count: notes.length, notes, by: context.user };
}

/** Moves the session's cursor forward by `step` and returns the new value. */
export function advance(params, context) {
  const cursor = typeof context.cursor === 'number' ? context.cursor : 0;
  context.cursor = cursor + params.step;
  return context.cursor;
}
