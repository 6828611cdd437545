/**
 * Dates as a person reads them: in the viewer's time zone, with the exact UTC time on hover and
 * for screen readers through `<time datetime>`.
 */

const day = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const clock = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });

/**
 * The day and the time of day each stay whole (styles.css), so in a narrow column the time goes
 * under the day rather than the table growing wider.
 */
export function Time({ value, empty = 'never' }: { value: string | null; empty?: string }) {
  if (value === null) return <span class="muted">{empty}</span>;
  const date = new Date(value);
  return (
    <time dateTime={value} title={date.toUTCString()}>
      <span class="day">{day.format(date)},</span> <span class="clock">{clock.format(date)}</span>
    </time>
  );
}
