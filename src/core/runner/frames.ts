// Messages between the server and its spawner (spawner.ts) over a pipe:
// each is a 4-byte length, then the message as V8 serializes it (so output
// bytes travel as bytes, not as text).
import { deserialize, serialize } from 'node:v8';

export function frame(msg: unknown): Buffer {
  const body = serialize(msg);
  const head = Buffer.allocUnsafe(4);
  head.writeUInt32LE(body.length, 0);
  return Buffer.concat([head, body]);
}

/** Feeds chunks of the pipe, calls `onMessage` for each whole message. */
export function frameReader(onMessage: (msg: unknown) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 4) {
      const size = pending.readUInt32LE(0);
      if (pending.length < 4 + size) break;
      const body = pending.subarray(4, 4 + size);
      pending = pending.subarray(4 + size);
      onMessage(deserialize(body));
    }
  };
}
