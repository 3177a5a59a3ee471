// Loaded into a benchmarked server with `--import`: on SIGUSR2 it writes to the file named by
// BENCH_ALLOCATION_FILE the bytes the JavaScript heap has allocated since the process started.
// V8 reports no running total, so the total is rebuilt from its collections: what the heap held
// before each one, less what it kept after the one before, plus what it holds now.
import fs from 'node:fs';
import v8 from 'node:v8';

const file = process.env.BENCH_ALLOCATION_FILE;
if (file) {
  let profiler = new v8.GCProfiler();
  profiler.start();
  let allocated = 0;
  let heldAfterLast = v8.getHeapStatistics().used_heap_size;
  process.on('SIGUSR2', () => {
    for (const { beforeGC, afterGC } of profiler.stop().statistics) {
      allocated += Math.max(0, beforeGC.heapStatistics.usedHeapSize - heldAfterLast);
      heldAfterLast = afterGC.heapStatistics.usedHeapSize;
    }
    profiler = new v8.GCProfiler();
    profiler.start();
    const held = v8.getHeapStatistics().used_heap_size;
    // Renamed into place, so the reader never sees the file half written.
    fs.writeFileSync(`${file}.next`, String(allocated + Math.max(0, held - heldAfterLast)));
    fs.renameSync(`${file}.next`, file);
  });
}
