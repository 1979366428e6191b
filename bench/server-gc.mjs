// Preloaded into the benchmarked server (bench/realtime.ts): SIGUSR2 runs a full garbage
// collection (node --expose-gc) and then counts it in $BENCH_GC_ACK, so a memory reading is
// taken on live objects rather than on whatever the last collection happened to leave.
import { writeFileSync } from 'node:fs';

let done = 0;
process.on('SIGUSR2', () => {
  globalThis.gc?.();
  globalThis.gc?.();
  writeFileSync(process.env.BENCH_GC_ACK, String(++done));
});
