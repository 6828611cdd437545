/**
 * The admin token of this tab. It lives in the tab's sessionStorage (gone when the tab closes,
 * never shared with other tabs opened later) and travels only as the `Authorization` header:
 * never in a URL, a cookie or a log.
 */

const TOKEN_ITEM = 'licensing-console.admin-token';

export function storedToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_ITEM);
  } catch {
    return null;
  }
}

export function keepToken(token: string): void {
  sessionStorage.setItem(TOKEN_ITEM, token);
}

export function forgetToken(): void {
  try {
    sessionStorage.removeItem(TOKEN_ITEM);
  } catch {
    // Storage that cannot be used holds nothing to forget.
  }
}
