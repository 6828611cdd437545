/**
 * Dates as a person reads them: in the viewer's time zone, with the exact UTC time on hover and
 * for screen readers through `<time datetime>`.
 */

const local = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatLocal(iso: string): string {
  return local.format(new Date(iso));
}

export function Time({ value, empty = 'never' }: { value: string | null; empty?: string }) {
  if (value === null) return <span class="muted">{empty}</span>;
  const utc = new Date(value).toUTCString();
  return (
    <time dateTime={value} title={utc}>
      {formatLocal(value)}
    </time>
  );
}
