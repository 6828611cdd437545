/**
 * What a form route may answer, checked by the typecheck (never run): its call answers the type
 * of the result its route documents. Each line marked `@ts-expect-error` must not compile, or the
 * typecheck fails.
 */
import { ValidationResult } from '../../../libs/contracts/index.js';
import { formRoute } from './form-route.js';
import { ValidateForm } from './inputs.js';

export const answersTheCompilerRefuses = [
  formRoute({
    path: '/validate',
    operationId: 'validate',
    summary: 'Validate.',
    tag: 'Licenses',
    form: ValidateForm,
    result: ValidationResult,
    errors: {},
    // @ts-expect-error the route documents a validation result, and the call answers a license
    call: ({ transport }, input) => transport.call('license.getLicense', input),
  }),
  formRoute({
    path: '/validate',
    operationId: 'validate',
    summary: 'Validate.',
    tag: 'Licenses',
    form: ValidateForm,
    result: ValidationResult,
    errors: {},
    // @ts-expect-error valid is a boolean
    call: async () => ({ valid: 'yes', status: 'active' }),
  }),
];
