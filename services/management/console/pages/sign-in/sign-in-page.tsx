import { useState } from 'preact/hooks';
import { ApiError } from '../../../../../libs/web/ui/api.js';
import { Field } from '../../../../../libs/web/ui/components.js';
import { AdminApi } from '../../shared/api/admin-api.js';
import { Input } from '../../shared/components/fields.js';
import { useAction } from '../../shared/hooks/hooks.js';
import { Done, Outcome } from '../../shared/components/notices.js';

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
        // Not signed in yet: a refused token is answered here, not by signing out.
        await new AdminApi(candidate, () => {}).call('listPlans');
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
      <Done>{notice}</Done>
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
