/** How the benchmark's figures are written: tables as prettier formats them, three figures. */

/**
 * A Markdown table with padded columns, as prettier formats it: the first column left-aligned
 * (names), the others right-aligned (figures).
 */
export function markdownTable(header: string[], rows: string[][]): string {
  const right = (i: number) => i > 0;
  const widths = header.map((cell, i) =>
    Math.max(3, cell.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: string[]) =>
    `| ${cells
      .map((cell, i) => (right(i) ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join(' | ')} |`;
  const rule = `| ${widths
    .map((width, i) => (right(i) ? `${'-'.repeat(width - 1)}:` : '-'.repeat(width)))
    .join(' | ')} |`;
  return [line(header), rule, ...rows.map((row) => line(header.map((_, i) => row[i] ?? '')))].join(
    '\n',
  );
}

/** Three significant figures, without exponent: 1234, 123, 12.3, 1.23, 0.123. */
export function significant(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return 'n/a';
  const magnitude = Math.abs(value);
  if (magnitude >= 100 || value === 0) return value.toFixed(0);
  if (magnitude >= 10) return value.toFixed(1);
  if (magnitude >= 1) return value.toFixed(2);
  return value.toFixed(3);
}

export function ratio(value: number | null, base: number | null): string {
  if (value === null || base === null || base <= 0) return 'n/a';
  return `${significant(value / base)}×`;
}
