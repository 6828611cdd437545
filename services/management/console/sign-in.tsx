import { useState } from 'preact/hooks';
import { ApiError, readAnswer, send } from '../../../libs/web/ui/api.js';
import { Field } from '../../../libs/web/ui/components.js';
import { ADMIN_BASE } from './admin-api.js';
import { Input } from './fields.js';
import { useAction } from './hooks.js';
import { Outcome } from './notices.js';

/**
 * Sign in with an admin token. The token is checked with a call that needs it (the plan list)
 * before it is kept; a wrong one is refused in words and kept nowhere.
 */
export function SignIn({
  onSignedIn,
  notice,
}: {
  onSignedIn: (token: string) => void;
  /** Why the console signed out by itself, when it did. */
  notice: string | null;
}) {
  const [token, setToken] = useState('');
  const action = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    const candidate = token.trim();
    await action.run(async () => {
      // An HTTP header carries visible ASCII only; anything else cannot be an admin token.
      if (!/^[\x21-\x7e]+$/.test(candidate)) {
        throw new Error('An admin token is one word of letters, digits and punctuation.');
      }
      try {
        const response = await send(`${ADMIN_BASE}/plans`, {
          method: 'GET',
          headers: { Authorization: `Bearer ${candidate}`, Accept: 'application/json' },
          cache: 'no-store',
          credentials: 'omit',
        });
        await readAnswer<unknown>(response);
      } catch (failure) {
        throw failure instanceof ApiError && failure.status === 401
          ? new Error('This admin token was not accepted. Check it and try again.')
          : failure;
      }
      setToken('');
      onSignedIn(candidate);
      return null;
    });
  };

  return (
    <main class="sign-in">
      <h1>Licensing console</h1>
      <p>Sign in with an admin token (one of ADMIN_TOKENS; npm start prints its own).</p>
      {notice !== null && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <form method="post" onSubmit={submit}>
        <Field label="Admin token" hint="Kept in this tab only, until you sign out or close it.">
          <Input
            type="password"
            name="admin_token"
            autocomplete="off"
            spellcheck={false}
            required
            value={token}
            onValue={setToken}
          />
        </Field>
        <button type="submit" disabled={action.busy || token.trim() === ''}>
          {action.busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
      <Outcome action={action} />
    </main>
  );
}
