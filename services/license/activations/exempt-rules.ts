import {
  checkExemptPattern,
  type ActivationType,
  type ExemptPatternForm,
} from '../../../libs/contracts/index.js';
import { checkIdentifier, identifierKey } from '../../../libs/identifier/index.js';

/**
 * Exempt identifiers (docs/api-decisions.md, "Exempt identifiers"): whether an activation's
 * identifier matches one of its plan's patterns. The pattern forms and their refusals are
 * libs/contracts/plans/exempt-identifiers.ts; these are the rules per activation type.
 */

/** Dot-separated labels, at least one, none empty: what a `*` stands for. */
function isWholeLabels(part: string): boolean {
  return part !== '' && part.split('.').every((label) => label !== '');
}

/**
 * Label wildcards are for host-like identifiers (domain, device, instance); on a seat plan the
 * wildcard is the address's local part only, so `*.test` cannot reach `anyone@shop.test` through
 * a local part that happens to contain dots.
 */
function appliesTo(form: ExemptPatternForm, type: ActivationType): boolean {
  switch (form.kind) {
    case 'exact':
      return true;
    case 'leading':
    case 'trailing':
      return type !== 'seat';
    case 'local-part':
      return type === 'seat';
  }
}

function matchesForm(form: ExemptPatternForm, key: string): boolean {
  switch (form.kind) {
    case 'exact':
      return key === form.value;
    case 'leading':
      return (
        key.endsWith(`.${form.suffix}`) && isWholeLabels(key.slice(0, -(form.suffix.length + 1)))
      );
    case 'trailing':
      return key.startsWith(`${form.prefix}.`) && isWholeLabels(key.slice(form.prefix.length + 1));
    case 'local-part': {
      if (!key.endsWith(`@${form.domain}`)) return false;
      const local = key.slice(0, -(form.domain.length + 1));
      return local !== '' && !local.includes('@');
    }
  }
}

/**
 * The first of a plan's patterns that an identifier, normalised for its activation type (spec
 * 2.4), matches; null when none does. Identifiers compare case-insensitively (2.4), so the
 * identifier's key is matched. A pattern that is not valid, or not of a form for the type,
 * matches nothing: a stored pattern can only narrow what is exempt, never widen it.
 */
export function matchingExemptPattern({
  patterns,
  identifier,
  activationType,
}: {
  patterns: readonly string[];
  identifier: string;
  activationType: ActivationType;
}): string | null {
  const key = identifierKey(identifier);
  for (const raw of patterns) {
    const checked = checkExemptPattern(raw);
    if ('problem' in checked) continue;
    if (appliesTo(checked.form, activationType) && matchesForm(checked.form, key)) {
      return checked.pattern;
    }
  }
  return null;
}

/** Whether an activation of this identifier is exempt under the plan's patterns. */
export function isExemptIdentifier(input: {
  patterns: readonly string[];
  identifier: string;
  activationType: ActivationType;
}): boolean {
  return matchingExemptPattern(input) !== null;
}

/** Stands for the wildcard's labels when a domain pattern is normalised as a website. */
const SAMPLE_LABEL = 'x';

/**
 * Why a pattern (valid in itself) can never match on a plan of this activation type, or null.
 * For plans to refuse what would silently do nothing: a label wildcard on a seat plan, `*@` on
 * a host-like one, and a domain pattern that is not written as websites are stored (spec 2.4:
 * `www.example.com` never matches, since the site is stored as `example.com`).
 */
export function exemptPatternProblem(activationType: ActivationType, raw: string): string | null {
  const checked = checkExemptPattern(raw);
  if ('problem' in checked) return checked.problem;
  const { pattern, form } = checked;
  const name = JSON.stringify(pattern);
  if (!appliesTo(form, activationType)) {
    return form.kind === 'local-part'
      ? `${name} is for seat plans: on a ${activationType} plan a * is a whole label, as in *.test`
      : `${name} cannot match an e-mail address: on a seat plan a * is the part before @, as in *@example.com`;
  }
  if (activationType !== 'domain') return null;

  // The pattern with its wildcard as one label must be a website in its stored form.
  let sample: string;
  let back: (normalised: string) => string | null;
  switch (form.kind) {
    case 'leading':
      sample = `${SAMPLE_LABEL}.${form.suffix}`;
      back = (n) => (n.startsWith(`${SAMPLE_LABEL}.`) ? `*${n.slice(SAMPLE_LABEL.length)}` : null);
      break;
    case 'trailing':
      sample = `${form.prefix}.${SAMPLE_LABEL}`;
      back = (n) =>
        n.endsWith(`.${SAMPLE_LABEL}`) ? `${n.slice(0, -SAMPLE_LABEL.length)}*` : null;
      break;
    default:
      sample = pattern;
      back = (n) => n;
  }
  const site = checkIdentifier('domain', sample);
  if ('problem' in site) {
    return (
      `${name} cannot match any website: a domain pattern is a host name or an IP address, ` +
      'with a * as its whole first or last label'
    );
  }
  if (site.identifier === sample) return null;
  const suggestion = back(site.identifier);
  return (
    `${name} never matches a website: sites are stored lowercase, without scheme, www., port ` +
    `or path, and in ASCII (xn--) form` +
    (suggestion === null ? '' : `; write ${JSON.stringify(suggestion)}`)
  );
}
