import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { SignedInAdmin } from '../../../../../libs/contracts/index.js';

/**
 * Who is signed in, and what their role lets them do: the console asks the API once
 * (`GET /admin/v1/me`, which lists the operations the role may call, from the route table) and
 * shows only the actions among them. The API refuses the others anyway (403 FORBIDDEN).
 */
export interface SignedIn {
  admin: SignedInAdmin | null;
  /** Whether the role may call the operation; nothing is allowed until the admin is known. */
  can: (operationId: string) => boolean;
}

export function signedIn(admin: SignedInAdmin | null): SignedIn {
  const allowed = new Set(admin?.operations ?? []);
  return { admin, can: (operationId) => allowed.has(operationId) };
}

export const SignedInContext = createContext<SignedIn>(signedIn(null));

export function useSignedIn(): SignedIn {
  return useContext(SignedInContext);
}

/** Whether the signed-in role may call an operation of the management API. */
export function useCan(): (operationId: string) => boolean {
  return useContext(SignedInContext).can;
}
