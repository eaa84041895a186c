/** Progress on stderr: a bar redrawn in place on a terminal; a plain line every few seconds otherwise (logs, CI). */
export function progressPrinter(label: string, unit: string) {
  const tty = process.stderr.isTTY;
  let lastLine = 0;
  let started = Date.now();
  let topic = '';
  return (done: number, total: number | undefined, what = '') => {
    if (what !== topic) {
      if (tty && topic) process.stderr.write('\n');
      topic = what;
      started = Date.now();
    }
    const rate = done / Math.max(0.001, (Date.now() - started) / 1000);
    const eta = total && rate > 0 ? `, ETA ${Math.round((total - done) / rate)}s` : '';
    const text = `${what ? `${what}: ` : ''}${done}${total ? `/${total}` : ''} ${unit}, ${rate.toFixed(1)}/s${eta}`;
    const finished = total !== undefined && done >= total;
    if (tty) {
      const width = 30;
      const filled = total ? Math.min(width, Math.round((done / total) * width)) : 0;
      process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}\x1b[K`);
      if (finished) {
        process.stderr.write('\n');
        topic = '';
      }
    } else if (Date.now() - lastLine > 5000 || finished) {
      lastLine = Date.now();
      process.stderr.write(`${label}: ${text}\n`);
    }
  };
}
