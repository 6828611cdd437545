import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { CopyText } from './copy-text.js';

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
  useEffect(() => heading.current?.focus(), [secret]);
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
      <CopyText text={secret} secret />
      <p class="warning">This {noun} will not be shown again: copy it now.</p>
      <button type="button" class="secondary" onClick={onDone}>
        I have copied it
      </button>
    </section>
  );
}
