/**
 * Runs `work` started by `button`, which is disabled meanwhile and so loses keyboard focus; it
 * gets it back afterwards, unless focus has gone somewhere else by then.
 */
export async function keepingFocus(
  button: HTMLElement,
  work: () => Promise<unknown>,
): Promise<void> {
  await work();
  const focused = document.activeElement;
  if (button.isConnected && (focused === null || focused === document.body)) button.focus();
}
