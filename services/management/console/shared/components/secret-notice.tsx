import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * A signing secret, shown once: when the endpoint is made or its secret replaced. It lives in
 * this component's state only, never in the history entry or storage, so a reload or a move to
 * another page forgets it. Focus moves to it, so a keyboard or screen reader meets it first.
 */
export function SecretNotice({
  secret,
  title,
  onDone,
  children,
  noun = 'secret',
}: {
  secret: string;
  title: string;
  onDone: () => void;
  /** What to do with it; unless said, a webhook signing secret's use. */
  children?: ComponentChildren;
  noun?: string;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  const value = useRef<HTMLElement>(null);
  const [copied, setCopied] = useState<string | null>(null);
  useEffect(() => heading.current?.focus(), [secret]);
  const selectSecret = () => {
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
      // Only in a secure context (https, or this machine): elsewhere the text is selected.
      if (navigator.clipboard === undefined) throw new Error('no clipboard');
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard.');
    } catch {
      selectSecret();
      setCopied('The browser did not let the page copy it: it is selected, copy it yourself.');
    }
  };
  return (
    <section class="panel secret" aria-labelledby="secret-heading">
      <h2 id="secret-heading" ref={heading} tabIndex={-1}>
        {title}
      </h2>
      {children ?? (
        <p>
          Give it to the receiver: it checks the <span class="mono">webhook-signature</span> header
          of every delivery with it.
        </p>
      )}
      <div class="secret-row">
        <code class="mono secret-value" ref={value} data-secret>
          {secret}
        </code>
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      {copied !== null && (
        <p class="muted" role="status">
          {copied}
        </p>
      )}
      <p class="warning">This {noun} will not be shown again: copy it now.</p>
      <button type="button" class="secondary" onClick={onDone}>
        I have copied it
      </button>
    </section>
  );
}
