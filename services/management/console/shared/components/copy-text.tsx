import { useRef, useState } from 'preact/hooks';

/**
 * A value to paste elsewhere (a store's events URL), with a Copy button: copied to the
 * clipboard where the browser allows it (a secure context), else selected for the person to
 * copy. The value is rendered as text.
 */
export function CopyText({
  text,
  label,
  secret = false,
}: {
  text: string;
  /** What the Copy button names; none for a secret shown once, whose notice names it. */
  label?: string;
  /** A secret shown once (SecretNotice): marked as one, its button the notice's own. */
  secret?: boolean;
}) {
  const value = useRef<HTMLElement>(null);
  const [said, setSaid] = useState<string | null>(null);
  const select = () => {
    const element = value.current;
    const selection = getSelection();
    if (element === null || selection === null) return;
    const range = document.createRange();
    range.selectNodeContents(element);
    selection.removeAllRanges();
    selection.addRange(range);
  };
  const copy = async () => {
    try {
      if (navigator.clipboard === undefined) throw new Error('no clipboard');
      await navigator.clipboard.writeText(text);
      setSaid('Copied to the clipboard.');
    } catch {
      select();
      setSaid('The browser did not let the page copy it: it is selected, copy it yourself.');
    }
  };
  return (
    <>
      <div class="secret-row">
        <code
          class="mono secret-value"
          ref={value}
          {...(secret ? { 'data-secret': true } : { 'data-copy': true })}
        >
          {text}
        </code>
        <button
          type="button"
          class={secret ? undefined : 'secondary small'}
          aria-label={label === undefined ? undefined : `Copy ${label}`}
          onClick={() => void copy()}
        >
          Copy
        </button>
      </div>
      {said !== null && (
        <p class="muted" role="status">
          {said}
        </p>
      )}
    </>
  );
}
