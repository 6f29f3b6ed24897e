// The spawner: a small helper process that starts every child of the
// server. A fork copies the page tables of the process that forks; the
// server's grow with its catalog and sessions (5,000 tools: +20 to 40 MiB),
// this process stays small, so a spawn costs the same whatever the server
// holds, and the server's event loop is not stopped while the kernel copies.
// It reads launch requests from stdin and answers with events on stdout
// (frames.ts); stdin and stdout are its only pipes to the server, and a
// child gets neither (its own stdio replaces them), nor any other of its
// descriptors (Node opens them close-on-exec). Its environment is empty:
// each child gets exactly the one the server built for it. It ends when
// the server does (stdin closes).
import { frame, frameReader } from './frames';
import { launchHere, type LaunchControl, type LaunchEvents, type LaunchRequest, type PtyModule } from './launch';

export type ToSpawner = { t: 'launch'; id: number; req: LaunchRequest } | { t: 'write'; id: number; data: string } | { t: 'end'; id: number };

export type FromSpawner =
  | { t: 'hello' }
  | { t: 'spawned'; id: number; pid: number }
  | { t: 'init'; id: number; pid: number }
  | { t: 'data'; id: number; stream: 'stdout' | 'stderr'; data: Buffer | string }
  | { t: 'exit'; id: number; code: number | null; signal: string | number | null }
  | { t: 'close'; id: number }
  | { t: 'error'; id: number; message: string; code?: string; pty?: boolean };

let pty: PtyModule | undefined;
function loadPty(): PtyModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (pty ??= require('node-pty') as PtyModule);
}

const send = (msg: FromSpawner): void => {
  process.stdout.write(frame(msg));
};

function eventsOf(id: number, forget: () => void): LaunchEvents {
  return {
    spawned: (pid) => send({ t: 'spawned', id, pid }),
    init: (pid) => send({ t: 'init', id, pid }),
    data: (stream, data) => send({ t: 'data', id, stream, data }),
    exit: (code, signal) => send({ t: 'exit', id, code, signal }),
    close: () => send({ t: 'close', id }),
    error: (e) => {
      forget();
      send({ t: 'error', id, ...e });
    },
  };
}

function main(): void {
  const runs = new Map<number, LaunchControl>();
  // Said before any request is read: a spawner that answered nothing started nothing.
  send({ t: 'hello' });
  process.stdin.on(
    'data',
    frameReader((m) => {
      const msg = m as ToSpawner;
      if (msg.t === 'launch') {
        let failed = false;
        const control = launchHere(msg.req, eventsOf(msg.id, () => ((failed = true), runs.delete(msg.id))), loadPty);
        if (!failed) runs.set(msg.id, control);
      }
      else if (msg.t === 'write') runs.get(msg.id)?.write(msg.data);
      else {
        runs.get(msg.id)?.end();
        runs.delete(msg.id);
      }
    }),
  );
  process.stdin.once('end', () => process.exit(0));
  // The server is gone: nobody reads what we write.
  process.stdout.on('error', () => process.exit(0));
}

if (require.main === module) main();
