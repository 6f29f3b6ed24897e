// Loaded into each server whose memory the bench measures, the bare SDK
// server and mcc alike (NODE_OPTIONS="--expose-gc --require <this file>"):
// on SIGUSR2 it collects all garbage and writes the live heap, in bytes, to
// $BENCH_HEAP_FILE. A heap snapshot says the same, but writing one of mcc
// took 6 to 10 s, most of a quick bench run.
import { renameSync, writeFileSync } from 'node:fs';

const out = process.env.BENCH_HEAP_FILE;
const collect = (globalThis as { gc?: () => void }).gc;
if (out && collect) {
  process.on('SIGUSR2', () => {
    // Twice: what the first pass frees can release more in the second.
    collect();
    collect();
    writeFileSync(`${out}.tmp`, String(process.memoryUsage().heapUsed));
    renameSync(`${out}.tmp`, out);
  });
}
