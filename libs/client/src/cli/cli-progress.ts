/** The download's progress bar on a terminal. */
import { bytes } from './cli-report.js';
import type { Output } from './cli-io.js';
import type { DownloadProgress } from '../downloads/download.js';

/** A one-line progress bar redrawn with a carriage return, at most every 100 ms. */
export function progressBar(stream: Output) {
  const width = 30;
  let last = 0;
  let drawn = '';
  const draw = ({ received, total }: DownloadProgress) => {
    let line: string;
    if (total !== null && total > 0) {
      const ratio = Math.min(1, received / total);
      const filled = Math.round(ratio * width);
      const percent = String(Math.floor(ratio * 100)).padStart(3);
      line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${percent}%  ${bytes(received)} / ${bytes(total)}`;
    } else {
      line = `${bytes(received)} received`;
    }
    stream.write(`\r${line}${' '.repeat(Math.max(0, drawn.length - line.length))}`);
    drawn = line;
  };
  let latest: DownloadProgress | undefined;
  return {
    update(progress: DownloadProgress) {
      latest = progress;
      const now = Date.now();
      if (now - last >= 100 || progress.received === progress.total) {
        last = now;
        draw(progress);
      }
    },
    end() {
      if (latest) {
        draw(latest);
        stream.write('\n');
      }
    },
  };
}
