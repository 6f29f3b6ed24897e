// Bucket ids: one string per (user, session key) that never collides, for
// any characters in either part, and is safe as a file or Memento key.

// Kept as-is; everything else (including '%' and ':') becomes %XXXX.
const PLAIN = /[A-Za-z0-9._@~-]/;

function encodePart(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    // Fixed-width escapes of UTF-16 code units: injective even for lone surrogates.
    out += PLAIN.test(ch) ? ch : '%' + s.charCodeAt(i).toString(16).padStart(4, '0');
  }
  return out;
}

/** The storage key of the bucket of `user` under `sessionKey`. */
export function bucketIdOf(user: string, sessionKey: string): string {
  // ':' never occurs in an encoded part, so it separates unambiguously.
  return `${encodePart(user)}:${encodePart(sessionKey)}`;
}
